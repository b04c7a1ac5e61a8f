// Presenter mode at 1024×768 fits one screen: the default preset's three
// kernels each with their strip, their readahead figures in one table
// with the mmap_miss gauge and the counters a room reads,
// and the step, all inside the viewport without scrolling; the strips'
// mouse hints are hidden and the controls stay on one line. So it does
// with a story's caption above the strips.
const VIEW = { width: 1024, height: 768 };

// Everything a talk needs on screen, by selector.
const NEEDED = [
  '[data-testid="strip"]', '[data-testid="strip-b"]', '[data-testid="strip-c"]',
  '[data-testid="mmap-miss"]', '[data-testid="mmap-miss-b"]', '[data-testid="mmap-miss-c"]',
  '[data-testid="ra-start"]', '[data-testid="ra-start-c"]', '[data-testid="major-c"]',
  '[data-testid="jump"]', '[data-testid="play"]',
];

async function checkFits(page, expect, what) {
  const size = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
  expect(size[0] <= VIEW.width && size[1] <= VIEW.height, `${what}: the page fits ${VIEW.width}×${VIEW.height} without scrolling (is ${size[0]}×${size[1]})`);
  const gauges = await page.$$eval('.gauge-bar', (gs) => gs.map((g) => g.getBoundingClientRect().bottom));
  expect(gauges.length === 3, `${what}: three mmap_miss gauges (${gauges.length})`);
  for (const sel of NEEDED.concat(['.gauge-bar'])) {
    const boxes = await page.$$eval(sel, (els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.left, r.top, r.right, r.bottom, r.width * r.height];
    }));
    expect(boxes.length > 0, `${what}: ${sel} on screen`);
    for (const [l, t, r, b, area] of boxes) {
      expect(area > 0 && l >= 0 && t >= 0 && r <= VIEW.width && b <= VIEW.height, `${what}: ${sel} within the viewport (${[l, t, r, b].map(Math.round)})`);
    }
  }
  // The mouse hints are for the speaker's desk, not the room.
  const hints = await page.$$eval('.strip-hint', (hs) => hs.filter((h) => h.getClientRects().length > 0).length);
  expect(hints === 0, `${what}: ${hints} mouse hints shown`);
  // The controls stay on one line, and no button's label wraps.
  const buttons = await page.$$eval('.controls button', (bs) => bs.map((b) => {
    const r = b.getBoundingClientRect();
    const line = parseFloat(getComputedStyle(b).lineHeight) || parseFloat(getComputedStyle(b).fontSize) * 1.4;
    return [Math.round(r.top), r.height, line, b.textContent];
  }));
  expect(buttons.every((b) => b[0] === buttons[0][0]), `${what}: the controls on one line (${JSON.stringify(buttons.map((b) => [b[3], b[0]]))})`);
  expect(buttons.every((b) => b[1] < 2 * b[2]), `${what}: no button's label wraps (${JSON.stringify(buttons.map((b) => [b[3], b[1]]))})`);
}

export async function run({ newPage, expect, expectEq, text, shot }) {
  // The default preset, past the MMAP_LOTSAMISS crossing, so the gauge
  // is full.
  const page = await newPage('?v=1&preset=seed000-rev-huge&step=60000&present=1', VIEW);
  expect((await page.$('[data-testid="presenter-view"]')) !== null, 'presenter frame');
  expectEq(await page.inputValue('[data-testid="jump"]'), '60000', 'the step');
  await checkFits(page, expect, 'presenter');
  await page.screenshot({ path: `${process.env.FOLIOSCOPE_OUT}/presenter-1024.png` });
  await page.context().close();

  // With the preset's story at its second stop: the caption above the
  // strips, large, and still one screen.
  const story = await newPage('?v=1&preset=seed000-rev-huge&story=seed&stop=2&present=1', VIEW);
  await story.waitForSelector('[data-testid="story-caption"]', { timeout: 20000 });
  expect((await text(story, 'story-count')).startsWith('stop 2 of '), await text(story, 'story-count'));
  const px = await story.evaluate(() => parseFloat(getComputedStyle(document.querySelector('[data-testid="story-caption"]')).fontSize));
  expect(px >= 22, `the caption is large (${px}px)`);
  await checkFits(story, expect, 'presenter with a story');
  await story.screenshot({ path: `${process.env.FOLIOSCOPE_OUT}/presenter-story-1024.png` });
  await shot(story, 'presenter-story-1024-full');
  await story.context().close();
}
