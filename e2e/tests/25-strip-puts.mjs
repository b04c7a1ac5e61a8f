// The strip puts on its canvas only the columns it painted since the last
// put (web/src/strip.rs, `Raster::take_dirty`). After jumps and single
// steps its pixels are those of the same view loaded afresh, also where a
// move forward over random accesses paints columns across most of the
// width (put from the whole raster, `put_columns`); and a canvas that
// comes back blank from a lost context is drawn whole on the next move.

/// A line per strip: its name, size and a hash of its pixels.
const strips = (page) => page.evaluate(() => [...document.querySelectorAll('canvas[data-testid^="strip"]')].map((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let h = 0;
  for (let i = 0; i < d.length; i++) h = (Math.imul(h, 31) + d[i]) >>> 0;
  return `${c.dataset.testid} ${c.width}x${c.height} ${h.toString(16)}`;
}).join('\n'));

export async function run({ newPage, expect, expectEq }) {
  const page = await newPage();
  const framesOn = (p, n) => p.evaluate((n) => new Promise((res) => {
    const tick = (k) => (k === 0 ? res() : requestAnimationFrame(() => tick(k - 1)));
    tick(n);
  }), n);
  const frames = (n) => framesOn(page, n);
  const seekOn = async (p, step) => {
    await p.evaluate((step) => {
      const r = document.querySelector('[data-testid="scrubber"]');
      r.value = String(step);
      r.dispatchEvent(new Event('input', { bubbles: true }));
    }, step);
    await framesOn(p, 2);
  };
  const seek = (step) => seekOn(page, step);
  const press = async (key, n) => {
    for (let k = 0; k < n; k++) {
      await page.keyboard.press(key);
      await frames(1);
    }
  };

  // Far jumps, short ones, and single accesses both ways.
  for (const step of [524288, 0, 1000, 1001, 51200, 300000, 300003]) await seek(step);
  await press('ArrowLeft', 20);
  await press('ArrowRight', 3);
  // The address follows the view once it stands still.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('step') === '299986', null, { timeout: 5000 });
  const moved = await strips(page);
  const fresh = await newPage(await page.evaluate(() => location.search));
  const want = await strips(fresh);
  expect(want.split('\n').length === 3, `the default view has three strips:\n${want}`);
  expectEq(moved, want, 'after jumps and single steps, the strips are those of the view loaded afresh');

  // Moves forward over random accesses, in place: each paints columns
  // across most of the strip, not all of them.
  const query = '?v=1&preset=seed000-random1-huge&kernel=v7.4-rc2&step=2000';
  const random = await newPage(query);
  for (const step of [2100, 2400, 2401, 2900]) await seekOn(random, step);
  const freshRandom = await newPage(query.replace('step=2000', 'step=2900'));
  expectEq(await strips(random), await strips(freshRandom), 'after moves forward over random accesses, the strip is that of the view loaded afresh');

  // A lost context comes back with a blank canvas.
  await page.evaluate(() => {
    for (const c of document.querySelectorAll('canvas[data-testid^="strip"]')) {
      c.getContext('2d').clearRect(0, 0, c.width, c.height);
      c.dispatchEvent(new Event('contextrestored'));
    }
  });
  await press('ArrowRight', 1);
  await press('ArrowLeft', 1);
  expectEq(await strips(page), want, 'a canvas back from a lost context is drawn whole on the next move');
}
