// A phone, 375×812: the page never scrolls sideways, and the file strip
// starts within the first 400 px, for the default view (three kernels
// compared), a view of one kernel, and compare mode with two kernels and
// every panel open. The step controls are reachable and work by touch.

const W = 375;

async function layout(page) {
  return page.evaluate((W) => {
    const doc = document.scrollingElement;
    // What sticks out on the right, outside any scroller of its own.
    const wide = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= W + 0.5) continue;
      let clipped = false;
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== 'visible') { clipped = true; break; }
      }
      if (!clipped) wide.push(`${el.tagName.toLowerCase()}.${el.className}[${el.dataset.testid || ''}] to ${Math.round(r.right)}`);
    }
    const strip = document.querySelector('[data-testid="strip"]').getBoundingClientRect();
    return { scrollWidth: doc.scrollWidth, stripTop: Math.round(strip.top + window.scrollY), wide: wide.slice(0, 5) };
  }, W);
}

import path from 'node:path';

export async function run({ newPage, expect, expectEq, shot, log, outDir }) {
  const phone = { width: W, height: 812 };
  const touch = { isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
  const views = [
    ['phone-375', ''],
    ['phone-375-one', '?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2&step=60000'],
    ['phone-375-compare', '?v=1&size=64M&kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=3000'],
  ];
  for (const [name, query] of views) {
    const page = await newPage(query, phone, touch);
    const l = await layout(page);
    log(`${name}: ${l.scrollWidth} px wide, the strip at ${l.stripTop} px`);
    expect(l.scrollWidth <= W, `${name}: the document is ${l.scrollWidth} px wide: ${l.wide.join('; ')}`);
    expect(l.wide.length === 0, `${name}: wider than the phone: ${l.wide.join('; ')}`);
    expect(l.stripTop < 400, `${name}: the strip starts ${l.stripTop} px down`);
    // The steps work by touch.
    await page.tap('[data-testid="home"]');
    await page.tap('[data-testid="fwd"]');
    expectEq(await page.inputValue('[data-testid="jump"]'), '1', `${name}: a tap on ▶ steps once`);
    // The first screen, as the phone shows it, and the whole page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(outDir, name + '.png') });
    await shot(page, name + '-full');
    await page.context().close();
  }
}
