// The file strip under the pointer: a click, a tap, a short drag and a
// double click leave its canvas in place, at its size and drawn, and the
// page below does not move; a drag zooms to the range it swept, and a
// double click zooms back out to the whole file. At 1400×900 and
// 1024×768.

/// The strip's canvas, its bitmap and box, a digest of its pixels, and
/// where the controls below it start.
async function strip(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid="strip"]');
    const r = c.getBoundingClientRect();
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let hash = 0;
    const colours = new Set();
    for (let i = 0; i < px.length; i += 4) {
      hash = (hash * 31 + px[i] * 7 + px[i + 1] * 3 + px[i + 2]) >>> 0;
      colours.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2]);
    }
    if (window.__strip === undefined) window.__strip = c;
    return {
      same: window.__strip === c,
      bitmap: [c.width, c.height],
      box: [Math.round(r.width), Math.round(r.height)],
      hash,
      colours: colours.size,
      below: Math.round(document.querySelector('.controls-wrap').getBoundingClientRect().top),
    };
  });
}

export async function run({ newPage, expect, expectEq, text, shot }) {
  for (const viewport of [{ width: 1400, height: 900 }, { width: 1024, height: 768 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    const page = await newPage('?v=1&preset=seed000-rev-huge&step=60000', viewport, { hasTouch: true });
    const before = await strip(page);
    expect(before.colours > 3, `${size}: the strip is drawn (${before.colours} colours)`);
    expectEq(before.bitmap[0], before.box[0], `${size}: the bitmap is as wide as the strip`);
    expectEq(before.bitmap[1], before.box[1], `${size}: the bitmap is as tall as the strip`);
    const whole = await text(page, 'zoom-strip');
    const box = await (await page.$('[data-testid="strip"]')).boundingBox();
    const y = box.y + box.height / 2;
    const unchanged = async (what) => {
      const now = await strip(page);
      expect(now.same, `${size}: after ${what} the canvas is the same element`);
      expectEq(JSON.stringify(now.bitmap), JSON.stringify(before.bitmap), `${size}: after ${what} the bitmap size`);
      expectEq(JSON.stringify(now.box), JSON.stringify(before.box), `${size}: after ${what} the strip's box`);
      expectEq(now.hash, before.hash, `${size}: after ${what} the pixels`);
      expectEq(now.below, before.below, `${size}: after ${what} the controls below stay put`);
      expectEq(await text(page, 'zoom-strip'), whole, `${size}: after ${what} the zoom`);
    };
    await page.mouse.click(box.x + box.width * 0.3, y);
    await unchanged('a click');
    await page.touchscreen.tap(box.x + box.width * 0.6, y);
    await unchanged('a tap');
    await page.mouse.move(box.x + 200, y);
    await page.mouse.down();
    await page.mouse.move(box.x + 204, y, { steps: 3 });
    await page.mouse.up();
    await unchanged('a 4 px drag');
    await page.mouse.dblclick(box.x + box.width * 0.5, y);
    await unchanged('a double click on the whole file');

    // A drag zooms to what it swept (the cached top of the file, which the
    // backward walk reached by this step); a double click zooms back out.
    await page.mouse.move(box.x + box.width * 0.7, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.95, y, { steps: 5 });
    await shot(page, `strip-drag-${viewport.width}`);
    await page.mouse.up();
    const zoomed = await text(page, 'zoom-strip');
    const [, a, b] = zoomed.match(/pages (\d+)\.\.(\d+) of/);
    const pages = Number(whole.match(/of (\d+)/)[1]);
    expect(Math.abs(Number(a) - pages * 0.7) < pages / 200 && Math.abs(Number(b) - pages * 0.95) < pages / 200,
      `${size}: the drag zoomed to the quarter it swept (${zoomed})`);
    const z = await strip(page);
    expect(z.same && z.colours > 3, `${size}: the zoomed strip is drawn`);
    await page.mouse.dblclick(box.x + box.width * 0.5, y);
    await page.waitForFunction((w) => document.querySelector('[data-testid="zoom-strip"]').textContent.trim() === w, whole);
    const out = await strip(page);
    expectEq(out.hash, before.hash, `${size}: zoomed back out, the strip draws the whole file again`);
    expect(out.same, `${size}: and it is still the same canvas`);
    await page.context().close();
  }
}
