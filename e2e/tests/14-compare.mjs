// Compare mode compares: a seed row's preset puts every kernel of the row
// on screen, each with its strip, ra panel, event log and xarray view
// side by side under one cursor; "show where" goes to the access where a
// kernel first parts from the first and zooms to the pages it holds
// differently, marked under its strip, with its own events in its log;
// every figure that differs is marked; every kernel has its patch
// toggles; kernels that never part say what stays the same and which
// work differs; the plots' legend names each kernel's line. At 1400×900
// and 1024×768.
import path from 'node:path';
import { parse } from '../lib/colour.mjs';

const KERNELS = ['v7.4-rc2', 'v7.4-rc2+desc-ra', 'v7.4-rc2-before-0b9c0aeba938'];

export async function run({ newPage, expect, expectEq, text, cli, shot, outDir }) {
  for (const viewport of [{ width: 1400, height: 900 }, { width: 1024, height: 768 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    const page = await newPage('?v=1&preset=seed000-rev-huge', viewport);
    // Every kernel of the seed row, each with its internals.
    expectEq(JSON.stringify(await page.$$eval('.strip-kernel', (ks) => ks.map((k) => k.textContent.trim()))), JSON.stringify(KERNELS), `${size}: the row's kernels`);
    for (const s of ['', '-b', '-c']) {
      for (const id of ['strip', 'inspector', 'mmap-miss', 'major', 'log', 'xarray']) {
        expect((await page.$(`[data-testid="${id}${s}"]`)) !== null, `${size}: ${id}${s} on screen`);
      }
    }
    // Side by side: the three logs share a row, as do the xarray views.
    const tops = await page.$$eval('[data-testid^="log"].panel', (ls) => ls.map((l) => Math.round(l.getBoundingClientRect().top)));
    expect(tops.length === 3 && tops.every((t) => t === tops[0]), `${size}: the logs side by side (${tops})`);
    // So are the ra panels, each naming its kernel, none wider than its
    // column.
    const panels = await page.$$eval('.ra-row > .panels', (ps) => ps.map((p) => {
      const r = p.getBoundingClientRect();
      return [Math.round(r.top), p.scrollWidth <= p.clientWidth + 1, p.querySelector('.panels-kernel')?.textContent];
    }));
    expectEq(JSON.stringify(panels.map((p) => p[2])), JSON.stringify(KERNELS), `${size}: the ra panels name their kernels`);
    expect(panels.every((p) => p[0] === panels[0][0] && p[1]), `${size}: the ra panels side by side, each within its column (${JSON.stringify(panels)})`);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width <= viewport.width, `${size}: no sideways scrolling (${width} px)`);
    // The plots' legend names each line.
    const legend = await text(page, 'plot-legend');
    for (const k of KERNELS) expect(legend.includes(k), `${size}: the plot legend names ${k}: ${legend}`);

    // Where v7.4-rc2+desc-ra first parts from v7.4-rc2.
    await page.click('[data-testid="compare-line-1"] [data-testid="jump-diff"]');
    await page.waitForSelector('[data-testid="diverge-note-1"]');
    expectEq(await page.inputValue('[data-testid="jump"]'), '513', `${size}: at the access where they part`);
    const note = await text(page, 'diverge-note-1');
    const m = note.match(/(\d+) pages? differ, in \d+ runs? from page (\d+) to (\d+)/);
    expect(m, `${size}: the note names the pages: ${note}`);
    const [lo, hi] = [Number(m[2]), Number(m[3])];
    // As the CLI has them: the folio below, read by desc-ra alone.
    const foliosOf = (k) => cli(['run', '--kernel', k, '--pattern', 'rev', '--madvise', 'hugepage', '--step', '513']).folios;
    const heads = (fs) => new Set(fs.flatMap(([s, o, n]) => [...Array(n).keys()].map((i) => `${s + i * (1 << o)}:${o}`)));
    const [a, b] = [heads(foliosOf(KERNELS[0])), heads(foliosOf(KERNELS[1]))];
    const onlyB = [...b].filter((h) => !a.has(h)).map((h) => h.split(':').map(Number));
    expect(onlyB.some(([s, o]) => s === lo && s + (1 << o) - 1 === hi), `${size}: pages ${lo}..${hi} are the folio only ${KERNELS[1]} holds (${JSON.stringify(onlyB)})`);
    const zoom = (await text(page, 'zoom-strip')).match(/pages (\d+)\.\.(\d+) of/);
    expect(Number(zoom[1]) <= lo && Number(zoom[2]) >= hi && Number(zoom[2]) - Number(zoom[1]) < 4 * (hi - lo + 1), `${size}: zoomed to them: ${zoom[0]}`);
    // Marked under the compared strip, in the style sheet's colour, and
    // under no other.
    const differs = parse(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--differs')));
    const marked = (id) => page.evaluate(([id, rgb]) => {
      const c = document.querySelector(`[data-testid="${id}"]`);
      const px = c.getContext('2d').getImageData(0, 62, c.width, 1).data;
      let n = 0;
      for (let i = 0; i < px.length; i += 4) n += px[i] === rgb[0] && px[i + 1] === rgb[1] && px[i + 2] === rgb[2];
      return n / c.width;
    }, [id, differs]);
    const [ma, mb, mc] = [await marked('strip'), await marked('strip-b'), await marked('strip-c')];
    expect(ma === 0 && mc === 0, `${size}: no marks under the first strip (${ma}) or the one that has not parted (${mc})`);
    expect(mb > 0.3, `${size}: the differing pages marked under ${KERNELS[1]} (${(mb * 100).toFixed(0)}% of the width)`);
    // B's own events of access 513, in its log: it reads the folio below.
    const bLines = await page.$$eval('[data-testid="log-lines-b"] li.log-line:not([hidden])', (ls) => ls.map((l) => l.textContent));
    expect(bLines.some((l) => l.startsWith('#513') && l.includes(`folio added at ${lo}, order 9`)), `${size}: ${KERNELS[1]}'s log shows it adding the folio at ${lo}`);
    const aLines = await page.$$eval('[data-testid="log-lines"] li.log-line:not([hidden])', (ls) => ls.map((l) => l.textContent));
    expect(!aLines.some((l) => l.includes(`folio added at ${lo},`)), `${size}: ${KERNELS[0]}'s log does not`);
    // Every figure that differs is marked, with the first kernel's value.
    const differing = await page.$$eval('.ra-row .panels:nth-child(2) .field.differs', (fs) => fs.map((f) => [f.querySelector('.value').dataset.testid, f.querySelector('.value').textContent, f.title]));
    expect(differing.length > 0, `${size}: figures that differ are marked`);
    for (const [id, value, title] of differing) {
      const first = await text(page, id.replace(/-b$/, ''));
      expect(first !== value && title.includes(`${KERNELS[0]}: ${first}`), `${size}: ${id} ${value} against ${first} (${title})`);
    }
    for (const id of ['major', 'minor', 'mb-read', 'ios', 'ra-start', 'ra-size', 'mmap-miss']) {
      const [x, y] = [await text(page, id), await text(page, `${id}-b`)];
      const isMarked = await page.$eval(`[data-testid="${id}-b"]`, (v) => v.closest('.differs') !== null);
      expectEq(isMarked, x !== y, `${size}: ${id} ${y} against ${x} is marked exactly when it differs`);
    }
    // The xarray view marks B's nodes that differ from A's (drawn once in
    // sight).
    await page.locator('[data-testid="xarray-b"]').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="xarray-b"] .xa-node.differs').length > 0);
    expect((await page.$$('[data-testid="xarray-b"] .xa-node.differs')).length > 0, `${size}: ${KERNELS[1]}'s differing nodes are marked`);
    await shot(page, `compare-diverge-${viewport.width}`);
    if (viewport.width === 1400) {
      // The README's picture of compare mode: the first screen of it.
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(outDir, 'compare.png') });
    }

    // Patch toggles for a compared kernel: its strip's kernel changes.
    await page.click('[data-testid="patches-b"] summary');
    await page.click('[data-testid="patch-b-desc-ra-3-seq-read"]');
    await page.waitForFunction(() => document.querySelectorAll('.strip-kernel')[1].textContent.trim() === 'v7.4-rc2+desc-ra-desc-ra-3-seq-read');
    expectEq(await text(page, 'kernel'), KERNELS[0], `${size}: the first kernel stays`);
    const desc = await text(page, 'patches-b');
    expect(desc.includes('lore.kernel.org') || desc.includes('seed 000'), `${size}: the patches carry their sources`);
    await page.context().close();
  }

  // Seed 004: the two kernels hold the same page cache throughout; the
  // bar says so, and which work differs, as the CLI counts it.
  const shmem = await newPage('?v=1&preset=seed004-thpon-64k-falloc');
  const line = await text(shmem, 'compare-line-1');
  expect(line.includes('hold the same page cache at every step'), line);
  const loads = (k) => cli(['run', '--kernel', k, '--fs', 'tmpfs', '--tmpfs-huge', 'on', '--tmpfs-file', 'fallocated', '--pattern', 'read:64k', '--file-size', '1G']).read_path.xas_load;
  const [la, lb] = [loads('v7.1-rc5'), loads('v7.1-rc5+fbatch')];
  expect(la !== lb && line.includes(`xas_load ${la} against ${lb}`), `the work that differs, xas_load ${la} against ${lb}: ${line}`);
  await shmem.context().close();
}
