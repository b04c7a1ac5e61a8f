// While play runs, the panels under the timeline that are out of sight
// stay at the step they show (web/src/components/held_out_of_sight.rs):
// in sight they follow every frame, out of sight they wait, and they catch
// up when they come into sight or play stops. A jump always reaches them.
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

  // A jump reaches the counters though they are below the fold.
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
  expectEq(s.counters, 1234, 'a jump reaches the counters out of sight');

  // Playing with the counters out of sight: the strips move on, the counters wait.
  await page.keyboard.press(' ');
  await frames(20);
  s = await read();
  expect(s.scrubber > 1234 && s.counters === 1234, `out of sight the counters wait while playing (${JSON.stringify(s)})`);

  // In sight, they follow the scrubber frame by frame.
  await page.evaluate(() => document.querySelector('[data-testid="step"]').scrollIntoView({ block: 'center' }));
  await frames(4);
  s = await read();
  expect(s.counters > 1234, `in sight the counters caught up (${JSON.stringify(s)})`);
  expectEq(s.counters, s.scrubber, 'in sight the counters show the strips\' step while playing');

  // Out of sight again, then paused: they catch up with the pause.
  await page.evaluate(() => window.scrollTo(0, 0));
  await frames(10);
  s = await read();
  expect(s.counters < s.scrubber, `out of sight again they wait (${JSON.stringify(s)})`);
  await page.keyboard.press(' ');
  await frames(2);
  s = await read();
  expectEq(s.counters, s.scrubber, 'paused, the counters show the step');
  await page.context().close();
}
