// Embedded in a real 640×400 iframe: the compare banner, every kernel's
// strip with its counters, and the step controls are inside the frame, and
// the frame's document does not scroll, for a bare `?embed=1` (the default
// preset, three kernels), after "show where", and for a one-kernel link.
import path from 'node:path';

const W = 640;
const H = 400;

// The embedded app inside an iframe of a host page.
async function framed(newPage, base, query) {
  const host = await newPage('', { width: W + 40, height: H + 40 });
  await host.setContent(`<!DOCTYPE html><html><body style="margin:0">
    <iframe src="${base}${query}" width="${W}" height="${H}" style="border:0;display:block"
      title="folioscope, embedded"></iframe></body></html>`);
  const frame = await (await host.$('iframe')).contentFrame();
  await frame.waitForSelector('[data-testid="embed"]', { timeout: 15000 });
  await frame.waitForSelector('html[data-warm="1"]', { state: 'attached', timeout: 15000 });
  return { host, frame };
}

// What sticks out of the frame, and whether its document scrolls.
async function fit(frame) {
  return frame.evaluate(({ W, H }) => {
    const doc = document.scrollingElement;
    const out = [];
    for (const el of document.querySelectorAll('.embed, .embed *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.left < 0 || r.top < 0 || r.right > W + 0.5 || r.bottom > H + 0.5) {
        out.push(`${el.tagName.toLowerCase()}.${el.className || ''}[${el.dataset.testid || ''}] at ${Math.round(r.left)},${Math.round(r.top)}-${Math.round(r.right)},${Math.round(r.bottom)}`);
      }
    }
    return {
      out: out.slice(0, 6),
      scrollHeight: doc.scrollHeight, clientHeight: doc.clientHeight,
      scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth,
      bottom: Math.round(document.querySelector('.embed').getBoundingClientRect().bottom),
    };
  }, { W, H });
}

// The element with this test id, seen whole inside the frame.
async function inside(frame, id) {
  const r = await frame.evaluate((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (!el) return null;
    const b = el.getBoundingClientRect();
    return { left: b.left, top: b.top, right: b.right, bottom: b.bottom, w: b.width, h: b.height };
  }, id);
  return r !== null && r.w > 0 && r.h > 0 && r.left >= 0 && r.top >= 0 && r.right <= W && r.bottom <= H;
}

export async function run({ base, newPage, expect, expectEq, log, outDir }) {
  const check = async (frame, what, ids) => {
    const f = await fit(frame);
    log(`${what}: content ends at ${f.bottom} px of ${H}`);
    expectEq(f.clientWidth, W, `${what}: the frame has no vertical scrollbar`);
    expect(f.scrollHeight <= f.clientHeight, `${what}: the document scrolls (${f.scrollHeight} > ${f.clientHeight})`);
    expect(f.scrollWidth <= f.clientWidth, `${what}: the document is ${f.scrollWidth} px wide`);
    expect(f.out.length === 0, `${what}: outside the ${W}×${H} frame: ${f.out.join('; ')}`);
    for (const id of ids) expect(await inside(frame, id), `${what}: ${id} is not wholly inside the frame`);
  };
  const controls = ['home', 'ev-back', 'back', 'play', 'fwd', 'ev-fwd', 'end', 'jump', 'scrubber', 'full-view'];

  // A bare ?embed=1 embeds the default preset: three kernels compared.
  const { host, frame } = await framed(newPage, base, '?embed=1');
  const three = ['strip', 'strip-b', 'strip-c', 'counter-line', 'counter-line-b', 'counter-line-c',
    'compare-bar', 'compare-line-1', 'compare-line-2', ...controls];
  await check(frame, 'three kernels', three);
  expectEq(await frame.getAttribute('[data-testid="counter-line"]', 'aria-live'), 'polite', 'the counters are a live region');
  // Stepping inside the frame moves the step and the counters.
  await frame.click('[data-testid="home"]');
  const before = await frame.textContent('[data-testid="counter-line"]');
  await frame.click('[data-testid="fwd"]');
  expectEq(await frame.inputValue('[data-testid="jump"]'), '1', 'one step forward inside the frame');
  const after = await frame.textContent('[data-testid="counter-line"]');
  expect(before !== after, `the counters follow the step: ${after}`);
  await (await host.$('iframe')).screenshot({ path: path.join(outDir, 'embed-640.png') });

  // "show where" goes to the first divergence and zooms to the pages that
  // differ, named in the frame's bar; the frame still holds everything.
  await frame.click('[data-testid="compare-line-1"] [data-testid="jump-diff"]');
  await frame.waitForFunction(() => !document.querySelector('[data-testid="zoom-embed"]').textContent.startsWith('pages 0..'));
  expectEq(await frame.inputValue('[data-testid="jump"]'), '513', 'at the first divergence');
  await check(frame, 'after show where', three);
  await (await host.$('iframe')).screenshot({ path: path.join(outDir, 'embed-640-diverge.png') });
  await host.context().close();

  // One kernel: its strip with the inspector and the legend, its counters
  // and readahead window on one line.
  const one = await framed(newPage, base, '?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2&step=60000&embed=1');
  expect((await one.frame.$('[data-testid="strip-b"]')) === null, 'one kernel, one strip');
  expect((await one.frame.$('[data-testid="compare-bar"]')) === null, 'no compare banner for one kernel');
  await check(one.frame, 'one kernel', ['strip', 'counter-line', 'line-ra-start', 'inspector', ...controls]);
  await (await one.host.$('iframe')).screenshot({ path: path.join(outDir, 'embed-640-one.png') });
  await one.host.context().close();
}
