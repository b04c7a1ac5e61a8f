// The strip tells the truth at every zoom, at 1400×900 and 1024×768:
// zoomed out, the cached share of each column is its filled height (a
// 16 GiB, 1%-random run is drawn about 8.8% full, as the CLI counts it,
// not 100%), the inspector names a column's shares by state and order,
// shadows of evicted pages are drawn apart from pages never cached,
// PG_readahead ticks sit over the folios' colours, adjacent folios are
// edged at the deepest zoom, a wheel notch zooms by a fixed factor and
// a trackpad's small deltas add up to the same, and the inspector names a
// page's folio, mapping, xarray path and the event that added it.
import { parse } from '../lib/colour.mjs';

// The strip's bands (web/src/strip.rs).
const RA = [9, 12], FOLIO = [13, 49];

/// The canvas's pixels and the palette, for reading columns.
async function grab(page, id = 'strip') {
  return page.evaluate((id) => {
    const c = document.querySelector(`[data-testid="${id}"]`);
    const style = getComputedStyle(document.documentElement);
    const colour = (n) => style.getPropertyValue(n).trim();
    const palette = { orders: [...Array(12).keys()].map((o) => colour(`--order-${o}`)) };
    for (const n of ['uncached', 'shadow', 'under-io', 'not-uptodate', 'folio-edge', 'readahead', 'cursor', 'cursor-edge']) palette[n] = colour(`--${n}`);
    const px = Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data);
    return { w: c.width, h: c.height, px, palette };
  }, id);
}

function reader({ w, px, palette }) {
  const key = (hex) => parse(hex).join(',');
  const orders = new Set(palette.orders.map(key));
  const cached = new Set([...orders, key(palette['under-io']), key(palette['not-uptodate']), key(palette['folio-edge'])]);
  const at = (x, y) => { const i = (y * w + x) * 4; return `${px[i]},${px[i + 1]},${px[i + 2]}`; };
  const cursorCols = new Set();
  for (let x = 0; x < w; x++) if ([key(palette.cursor), key(palette['cursor-edge'])].includes(at(x, 0)) && at(x, 0) === at(x, 30)) cursorCols.add(x);
  return {
    at, orders, cached, key, cursorCols,
    filled: (x) => { let n = 0; for (let y = FOLIO[0]; y < FOLIO[1]; y++) n += cached.has(at(x, y)); return n / (FOLIO[1] - FOLIO[0]); },
  };
}

/// Pages of `[a, b]` the CLI's resident runs hold.
const residentIn = (runs, a, b) => runs.reduce((n, [s, len]) => n + Math.max(0, Math.min(b + 1, s + len) - Math.max(a, s)), 0);

export async function run({ newPage, expect, expectEq, text, cli, shot, log }) {
  const cliRun = cli(['run', '--pattern', 'random:1:1', '--file-size', '16G', '--madvise', 'hugepage', '--kernel', 'v7.4-rc2', '--step', '20000']);
  const resident = cliRun.resident_pages / (16 * 262144);
  for (const viewport of [{ width: 1400, height: 900 }, { width: 1024, height: 768 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    // Zoomed out over 16 GiB: each column holds about 3000 pages.
    const page = await newPage('?v=1&preset=seed000-random1-huge&kernel=v7.4-rc2&step=20000', viewport);
    const g = await grab(page);
    const r = reader(g);
    // Each column's filled height is its cached share of 36 px, rounded
    // (and one pixel for any cached page), as the CLI's runs count the
    // pages of the column (core's Span: column x starts at
    // pages * x / width).
    const pages = 16 * 262144;
    const band = FOLIO[1] - FOLIO[0];
    let sum = 0, cols = 0, full = 0;
    for (let x = 0; x < g.w; x++) {
      if (r.cursorCols.has(x)) continue;
      const a = Math.floor(pages * x / g.w), b = Math.floor(pages * (x + 1) / g.w);
      const n = residentIn(cliRun.resident, a, b - 1);
      const want = n === 0 ? 0 : Math.min(band, Math.max(1, Math.floor((n * band + Math.floor((b - a) / 2)) / (b - a))));
      const got = Math.round(r.filled(x) * band);
      expectEq(got, want, `${size}: column ${x} (pages ${a}..${b - 1}, ${n} cached) is filled`);
      sum += r.filled(x); cols++; full += got === band;
    }
    const drawn = sum / cols;
    log(`${size}: drawn ${(drawn * 100).toFixed(1)}% cached (a pixel for any cached page), the CLI counts ${(resident * 100).toFixed(1)}%; ${full} of ${cols} columns full`);
    expect(drawn < 0.15, `${size}: the strip is drawn ${(drawn * 100).toFixed(1)}% cached, not full`);
    // Hover a column: its shares, as the CLI's runs count them.
    const box = await (await page.$('[data-testid="strip"]')).boundingBox();
    let checked = 0;
    for (const f of [0.2, 0.5, 0.8]) {
      await page.mouse.move(box.x + Math.round(box.width * f) + 0.5, box.y + 30);
      await page.waitForFunction(() => /^pages \d+\.\.\d+/.test(document.querySelector('[data-testid="inspector"]').textContent));
      const line = await page.textContent('[data-testid="inspector"] [data-line="0"]');
      const m = line.match(/^pages (\d+)\.\.(\d+) \((\d+)\): (\d+) cached \(([\d.]+)%\)/);
      expect(m, `${size}: the column line ${line}`);
      const [a, b, n, c] = [1, 2, 3, 4].map((i) => Number(m[i]));
      expectEq(c, residentIn(cliRun.resident, a, b), `${size}: pages cached in ${a}..${b}`);
      expect(n === b - a + 1 && n > 1000, `${size}: a column of ${n} pages`);
      // The dominant order and its share, from the CLI's folio runs.
      const byOrder = {};
      for (const [start, o, count] of cliRun.folios) {
        for (let k = 0; k < count; k++) {
          const s0 = start + k * (1 << o);
          const inCol = Math.max(0, Math.min(b + 1, s0 + (1 << o)) - Math.max(a, s0));
          if (inCol) byOrder[o] = (byOrder[o] || 0) + inCol;
        }
      }
      const top = Object.entries(byOrder).sort((x, y) => y[1] - x[1] || y[0] - x[0])[0];
      if (top) {
        const share = (top[1] * 100 / c).toFixed(1);
        expect(line.includes(`resident by order: order ${top[0]} ${share}%`), `${size}: the dominant order and its share, order ${top[0]} ${share}%: ${line}`);
      }
      checked++;
    }
    expectEq(checked, 3, 'columns inspected');
    await shot(page, `strip-zoomed-out-${viewport.width}`);
    await page.context().close();
  }

  // Shadows: a forward walk in a memory cgroup a quarter of the file's
  // size evicts what it read first; evicted pages are drawn from the top
  // in their own colour, and the inspector counts them.
  const memcg = await newPage('?v=1&size=256M&madvise=hugepage&memcg=64M&step=40000');
  const g = await grab(memcg);
  const r = reader(g);
  const shadowCols = [];
  for (let x = 0; x < g.w; x++) if (!r.cursorCols.has(x) && r.at(x, FOLIO[0]) === r.key(g.palette.shadow)) shadowCols.push(x);
  // The CLI: 16384 of 65536 pages resident, read up to page 40960 and
  // ahead; the rest of what was read, evicted.
  expect(shadowCols.length > g.w * 0.3, `columns with shadows at their top: ${shadowCols.length} of ${g.w}`);
  const mbox = await (await memcg.$('[data-testid="strip"]')).boundingBox();
  await memcg.mouse.move(mbox.x + shadowCols[Math.floor(shadowCols.length / 2)] + 0.5, mbox.y + 30);
  await memcg.waitForFunction(() => /shadows \(evicted\)/.test(document.querySelector('[data-testid="inspector"]').textContent));
  await shot(memcg, 'strip-shadows');
  await memcg.context().close();

  // PG_readahead ticks above the folios, whose colour stays.
  const seq = await newPage('?v=1&preset=seed000-fwd-seq&kernel=v7.4-rc2&step=3000&zoom=0-8192');
  const sg = await grab(seq);
  const sr = reader(sg);
  let ticks = 0;
  for (let x = 0; x < sg.w; x++) {
    if (sr.at(x, RA[0]) !== sr.key(sg.palette.readahead)) continue;
    ticks++;
    expect(sr.orders.has(sr.at(x, FOLIO[1] - 1)), `under the tick at column ${x}, the folio keeps its order's colour`);
  }
  expect(ticks > 0, 'PG_readahead ticks are drawn');
  await seq.context().close();

  // The deepest zoom: order-0 folios side by side, each edged; page
  // numbers are drawn.
  const deep = await newPage('?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2&step=60000&zoom=470000-470040');
  const dg = await grab(deep);
  const dr = reader(dg);
  const mid = Math.floor((FOLIO[0] + FOLIO[1]) / 2);
  let edges = 0;
  for (let x = 0; x < dg.w; x++) edges += dr.at(x, mid) === dr.key(dg.palette['folio-edge']);
  const folios = cli(['run', '--pattern', 'rev', '--madvise', 'hugepage', '--kernel', 'v7.4-rc2', '--step', '60000']).folios;
  const heads = folios.flatMap(([s, o, n]) => [...Array(n).keys()].map((k) => s + k * (1 << o))).filter((s) => s > 470000 && s < 470040);
  expectEq(edges, heads.length, 'one edge where each folio meets the one before it');
  await shot(deep, 'strip-deepest-zoom');

  // The wheel: one notch halves the pages in view; twenty small deltas
  // that add up to a notch do the same, not twenty halvings.
  const pagesShown = async (p) => { const m = (await text(p, 'zoom-strip')).match(/pages (\d+)\.\.(\d+)/); return Number(m[2]) - Number(m[1]) + 1; };
  const wheelPage = await newPage('?v=1&preset=seed000-rev-huge&step=60000');
  const wbox = await (await wheelPage.$('[data-testid="strip"]')).boundingBox();
  await wheelPage.mouse.move(wbox.x + wbox.width / 2, wbox.y + 30);
  const whole = await pagesShown(wheelPage);
  await wheelPage.mouse.wheel(0, -100);
  await wheelPage.waitForTimeout(150);
  const notch = await pagesShown(wheelPage);
  expect(Math.abs(notch / whole - 0.5) < 0.01, `one notch: ${whole} → ${notch} pages`);
  for (let k = 0; k < 20; k++) await wheelPage.mouse.wheel(0, -5);
  await wheelPage.waitForTimeout(150);
  const flick = await pagesShown(wheelPage);
  expect(Math.abs(flick / notch - 0.5) < 0.05, `twenty 5 px deltas: ${notch} → ${flick} pages`);
  await wheelPage.context().close();

  // The inspector: before any hover it names the current access's page;
  // hovered, a page's folio, mapping, xarray path and origin, as the CLI
  // lays the folios out; focused, ← → move it without moving the step.
  const before = await deep.textContent('[data-testid="inspector"]');
  expect(/^page \d+ \(the current access\): /.test(before), `the inspector names the current access's page: ${before}`);
  const dbox = await (await deep.$('[data-testid="strip"]')).boundingBox();
  await deep.mouse.move(dbox.x + dbox.width * 0.5, dbox.y + 30);
  await deep.waitForFunction(() => /added by access #\d+, event \d+ of \d+: /.test(document.querySelector('[data-testid="inspector"]').textContent));
  const lines = await deep.$$eval('[data-testid="inspector"] div', (ds) => ds.map((d) => d.textContent));
  const m = lines[0].match(/^page (\d+): folio (\d+)\.\.(\d+), order (\d+) \((\d+) pages?\), flags ([a-z, ]+); (mapped by a (PTE|PMD)|not mapped)/);
  expect(m, `the page line: ${lines[0]}`);
  const p = Number(m[1]);
  const folio = folios.map(([s, o, n]) => [...Array(n).keys()].map((k) => [s + k * (1 << o), o])).flat().find(([s, o]) => p >= s && p < s + (1 << o));
  expectEq(`${m[2]} ${m[4]}`, `${folio[0]} ${folio[1]}`, 'the folio at the page, as the CLI lays them out');
  expect(/^xarray: head → node \d+ \(shift \d+, offset \d+\) slot \d+( → node \d+ \(shift \d+, offset \d+\) slot \d+)*: entry in slot \d+/.test(lines[1]), `the xarray path: ${lines[1]}`);
  expect(/filemap_fault: folio added at \d+, order 0/.test(lines[2]), `the event that added it: ${lines[2]}`);
  await shot(deep, 'inspector');
  const step = await deep.inputValue('[data-testid="jump"]');
  await deep.focus('[data-testid="strip"]');
  await deep.keyboard.press('ArrowRight');
  await deep.waitForFunction((p) => !document.querySelector('[data-testid="inspector"]').textContent.startsWith(`page ${p}:`), p);
  const moved = Number((await deep.textContent('[data-testid="inspector"] [data-line="0"]')).match(/^page (\d+)/)[1]);
  expectEq(moved, p + 1, 'ArrowRight on the focused strip inspects the next page');
  expectEq(await deep.inputValue('[data-testid="jump"]'), step, 'and the step stays');
  await deep.context().close();
}
