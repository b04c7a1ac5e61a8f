// While the view moves (play, or jumps in a row), the panels under the
// timeline that are out of sight stay at the step they show
// (web/src/components/held_out_of_sight.rs): in sight they follow every
// frame, out of sight they wait, and they catch up when they come into
// sight, as play stops, or once the view stands still after jumps
// (SETTLE_MS, 120 ms). Above the ra panels, the kernels' names alone in
// sight do not count.
export async function run({ newPage, expect, expectEq }) {
  const page = await newPage();
  const read = () => page.evaluate(() => ({
    scrubber: Number(document.querySelector('[data-testid="scrubber"]').value),
    counters: Number(document.querySelector('[data-testid="step"]').textContent.split('/')[0]),
  }));
  const frames = (n) => page.evaluate((n) => new Promise((res) => {
    const tick = (k) => (k === 0 ? res() : requestAnimationFrame(() => tick(k - 1)));
    tick(n);
  }), n);

  // A jump leaves the counters below the fold as they were for a frame
  // or two, and reaches them once the view stands still.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = '1234';
    r.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await frames(2);
  let s = await read();
  expect(await page.evaluate(() => document.querySelector('[data-testid="step"]').getBoundingClientRect().top > innerHeight),
    'the counters start out of sight');
  expect(s.counters !== 1234 && s.scrubber === 1234, `right after a jump the counters out of sight wait (${JSON.stringify(s)})`);
  expect(await page.evaluate(() => document.querySelector('[data-held="1"]') !== null), 'a held block says so');
  await page.waitForTimeout(400);
  s = await read();
  expectEq(s.counters, 1234, 'the view standing still, a jump reaches the counters out of sight');
  expect(await page.evaluate(() => document.querySelector('[data-held="1"]') === null), 'no block is held once the view stands still');

  // Jumps in a row, as a drag of the scrubber makes them: the counters
  // wait until the last.
  await page.evaluate(async () => {
    const r = document.querySelector('[data-testid="scrubber"]');
    for (let k = 1; k <= 10; k++) {
      r.value = String(1234 + 100 * k);
      r.dispatchEvent(new Event('input', { bubbles: true }));
      await new Promise((res) => setTimeout(res, 40));
    }
  });
  s = await read();
  expectEq(s.counters, 1234, 'during a drag the counters out of sight wait');
  await page.waitForTimeout(400);
  s = await read();
  expectEq(s.counters, 2234, 'after the drag they show its last step');

  // Playing with the counters out of sight: the strips move on, the counters wait.
  await page.keyboard.press(' ');
  await frames(20);
  s = await read();
  expect(s.scrubber > 2234 && s.counters === 2234, `out of sight the counters wait while playing (${JSON.stringify(s)})`);

  // In sight, they follow the scrubber frame by frame.
  await page.evaluate(() => document.querySelector('[data-testid="step"]').scrollIntoView({ block: 'center' }));
  await frames(4);
  s = await read();
  expect(s.counters > 2234, `in sight the counters caught up (${JSON.stringify(s)})`);
  expectEq(s.counters, s.scrubber, 'in sight the counters show the strips\' step while playing');

  // Only the kernels' names over the panels in sight: they are the same
  // at every step, so the counters wait as if out of sight; with a few
  // pixels of the first panel in sight they follow again.
  const showPanelTop = (px) => page.evaluate((px) => {
    const block = document.querySelector('[data-testid="step"]').closest('.held');
    const panel = block.querySelector('.panel');
    window.scrollBy(0, panel.getBoundingClientRect().top - innerHeight + px);
    return { block: block.getBoundingClientRect().top, panel: panel.getBoundingClientRect().top, height: innerHeight };
  }, px);
  let at = await showPanelTop(-4);
  expect(at.block < at.height && at.panel > at.height, `the panels' heading alone is in sight (${JSON.stringify(at)})`);
  await frames(10);
  const before = await read();
  await frames(10);
  s = await read();
  expect(s.scrubber > before.scrubber && s.counters === before.counters,
    `under a heading in sight the counters wait while playing (${JSON.stringify([before, s])})`);
  at = await showPanelTop(6);
  expect(at.panel < at.height, `the first panel is in sight (${JSON.stringify(at)})`);
  await frames(4);
  s = await read();
  expectEq(s.counters, s.scrubber, 'with the first panel in sight the counters follow while playing');

  // Out of sight again, then paused: they catch up with the pause, on
  // its frame, not SETTLE_MS later.
  await page.evaluate(() => window.scrollTo(0, 0));
  await frames(10);
  s = await read();
  expect(s.counters < s.scrubber, `out of sight again they wait (${JSON.stringify(s)})`);
  await page.keyboard.press(' ');
  await frames(2);
  s = await read();
  expectEq(s.counters, s.scrubber, 'paused, the counters show the step at once');
  await page.context().close();
}
