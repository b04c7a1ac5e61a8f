// The strip's colours, from the built style sheet: every pair of colours
// that meet on the strip stays apart under normal vision, protanopia,
// deuteranopia and tritanopia (Machado et al. 2009, CIEDE2000), order 9
// against "not cached" meets WCAG's 3:1 for graphics, and the page uses
// them: the custom properties the style sheet declares are the page's
// computed ones, the legend's swatches show them, and every pixel of the
// strip's folio band is one of them.
import fs from 'node:fs';
import path from 'node:path';
import { parse, contrast, leastDifference } from '../lib/colour.mjs';

/// Differences (CIEDE2000) a pair of colours that meet must keep under
/// every vision. A column is a thin mark, and thin marks need far larger
/// differences than the ~2 at which large patches side by side part
/// (Stone, Szafir and Setlur 2014); 8 is four times that. Cached against
/// not cached is the strip's first question, so it gets more.
const APART = 8;
const APART_FROM_UNCACHED = 12;
const ORDERS = 12;

export async function run({ newPage, expect, expectEq, log, outDir, shot }) {
  const page = await newPage('?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2&step=60000');
  // The :root custom properties as the built style sheet declares them,
  // and as the page computes them.
  const { declared, computed } = await page.evaluate(() => {
    const declared = {};
    for (const sheet of document.styleSheets) {
      for (const rule of sheet.cssRules) {
        if (rule.selectorText !== ':root') continue;
        for (const name of rule.style) if (name.startsWith('--')) declared[name] = rule.style.getPropertyValue(name).trim();
      }
    }
    const style = getComputedStyle(document.documentElement);
    const computed = {};
    for (const name of Object.keys(declared)) computed[name] = style.getPropertyValue(name).trim();
    return { declared, computed };
  });
  const colour = (name) => {
    expect(name in declared, `the style sheet declares ${name}`);
    expectEq(computed[name], declared[name], `${name} as the page computes it`);
    return parse(declared[name]);
  };
  const orders = [...Array(ORDERS).keys()].map((o) => [`order ${o}`, colour(`--order-${o}`)]);
  const named = (n) => [n.slice(2).replace(/-/g, ' '), colour(n)];
  const uncached = named('--uncached');
  const states = [named('--shadow'), named('--under-io'), named('--not-uptodate')];
  const edge = named('--folio-edge');
  const white = ['the panel', [255, 255, 255]];

  // Which colours meet on the strip (web/src/strip.rs): in the folio band
  // any order or state beside any other, in a column or the next; a folio
  // edge beside a cached page's colours; the mapping band's, the
  // PG_readahead ticks' and the window's colours beside each other and
  // the panel.
  const folio = [...orders, uncached, ...states];
  const pairs = [];
  for (let i = 0; i < folio.length; i++) for (let j = i + 1; j < folio.length; j++) pairs.push([folio[i], folio[j]]);
  for (const c of [...orders, states[1], states[2]]) pairs.push([edge, c]);
  const pte = named('--pte'), pmd = named('--pmd'), ra = named('--readahead');
  const win = named('--ra-window'), async_ = named('--ra-async');
  pairs.push([pte, pmd], [pte, white], [pmd, white], [ra, white], [win, async_], [win, white], [async_, white]);

  const report = [];
  let least = { delta: Infinity };
  for (const [[an, a], [bn, b]] of pairs) {
    const d = leastDifference(a, b);
    const want = an === 'uncached' || bn === 'uncached' ? APART_FROM_UNCACHED : APART;
    report.push({ a: an, b: bn, delta: Math.round(d.delta * 10) / 10, vision: d.vision });
    if (d.delta - want < least.delta - (least.want || 0)) least = { ...d, a: an, b: bn, want };
    expect(d.delta >= want, `${an} and ${bn} differ by ${d.delta.toFixed(1)} under ${d.vision}, want ${want}`);
  }
  // The current access: black set off by white, so it shows on any colour.
  const cursor = named('--cursor'), cursorEdge = named('--cursor-edge');
  expect(contrast(cursor[1], cursorEdge[1]) >= 7, 'the cursor against its edges');
  for (const [n, c] of [...folio, edge]) {
    const d = Math.max(leastDifference(cursor[1], c).delta, leastDifference(cursorEdge[1], c).delta);
    expect(d >= APART_FROM_UNCACHED, `the cursor or its edge stands out on ${n} (${d.toFixed(1)})`);
  }
  const c9 = contrast(orders[9][1], uncached[1]);
  expect(c9 >= 3, `order 9 against not cached is ${c9.toFixed(2)}:1, WCAG asks 3:1 for graphics`);
  const adjacent = orders.slice(1).map(([, c], o) => contrast(c, orders[o][1]));
  log(`least difference ${least.delta.toFixed(1)} (${least.a} / ${least.b}, ${least.vision}); order 9 vs not cached ${c9.toFixed(2)}:1; adjacent orders ${Math.min(...adjacent).toFixed(2)}..${Math.max(...adjacent).toFixed(2)}:1`);
  fs.writeFileSync(path.join(outDir, 'palette.json'), JSON.stringify({ least, order9_vs_uncached: c9, pairs: report }, null, 1));

  // The legend's swatches show the style sheet's colours.
  const swatches = await page.$$eval('[data-testid="legend"] .swatch', (ss) => ss.map((s) => [s.textContent.trim(), getComputedStyle(s.querySelector('i')).backgroundColor]));
  for (const [label, want] of [['order 0', orders[0][1]], ['order 9', orders[9][1]], ['not cached', uncached[1]], ['shadow (evicted)', states[0][1]]]) {
    const s = swatches.find(([l]) => l === label);
    expect(s, `a swatch for ${label}`);
    expectEq(JSON.stringify(parse(s[1])), JSON.stringify(want), `the ${label} swatch`);
  }

  // Every pixel of the folio band is one of the palette's colours: the
  // canvas draws with the style sheet's values.
  const allowed = new Set([...folio, edge, cursor, cursorEdge].map(([, c]) => c.join(',')));
  const band = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="strip"]');
    // strip.rs: the folio band's rows.
    const px = c.getContext('2d').getImageData(0, 13, c.width, 36).data;
    const seen = {};
    for (let i = 0; i < px.length; i += 4) {
      const k = `${px[i]},${px[i + 1]},${px[i + 2]}`;
      seen[k] = (seen[k] || 0) + 1;
    }
    return seen;
  });
  for (const k of Object.keys(band)) expect(allowed.has(k), `the folio band draws ${k}, which is not a palette colour`);
  for (const [n, c] of [orders[0], orders[9], uncached]) expect(band[c.join(',')] > 0, `the band shows ${n}`);
  await shot(page, 'palette');
  await page.context().close();
}
