// Chromium traces of the page for the tests that time or inspect its
// frames, and the link those tests share.

/// The 16 GiB comparison (4,194,304 pages, 1% random, MADV_HUGEPAGE, two
/// kernels), as `folioscope link` writes it: the scale where the strips,
/// the scrubber and the marks cost most.
export const BIG = '?v=1&kernel=v7.4-rc2,v7.4-rc2+desc-ra&size=16G&madvise=hugepage&pattern=random:1:1';

/// Runs `fn` in the page (with `arg`), traced with `categories`; returns
/// its result and the trace's events.
export async function traced(page, fn, categories = 'toplevel,devtools.timeline', arg = undefined) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Tracing.start', { categories, transferMode: 'ReturnAsStream' });
  const result = await page.evaluate(fn, arg);
  const done = new Promise((res) => cdp.once('Tracing.tracingComplete', res));
  await cdp.send('Tracing.end');
  const { stream } = await done;
  let data = '';
  for (;;) {
    const { data: d, eof } = await cdp.send('IO.read', { handle: stream });
    data += d;
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const parsed = JSON.parse(data);
  return { result, events: parsed.traceEvents || parsed };
}

/// The events of the traced page's main thread. A trace covers every
/// renderer of the browser, so with other pages open it is the main
/// thread that took the page's console.timeStamp marks.
export function onMainThread(events) {
  const mains = events.filter((e) => e.name === 'thread_name' && e.args && e.args.name === 'CrRendererMain');
  const same = (m) => (e) => e.tid === m.tid && e.pid === m.pid;
  const main = mains.find((m) => events.some((e) => e.name === 'TimeStamp' && same(m)(e))) || mains[0];
  return main ? events.filter(same(main)) : [];
}

/// The page's WebAssembly memory, in MB (to one decimal): the largest
/// `WebAssembly.Memory` the page holds, found through the DevTools
/// protocol, so the app exposes nothing for it. A wasm memory only ever
/// grows, so this is the peak of the app's heap so far, all kernels'
/// timelines, seekers and caches together (the JS heap and the DOM
/// aside).
export async function wasmMemoryMb(page) {
  const cdp = await page.context().newCDPSession(page);
  const objectGroup = 'wasm-memory';
  try {
    const { result: proto } = await cdp.send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype', objectGroup });
    const { objects } = await cdp.send('Runtime.queryObjects', { prototypeObjectId: proto.objectId, objectGroup });
    const { result } = await cdp.send('Runtime.callFunctionOn', {
      objectId: objects.objectId,
      functionDeclaration: 'function () { return this.map((m) => m.buffer.byteLength); }',
      returnByValue: true,
    });
    const bytes = Math.max(0, ...result.value);
    return Math.round(bytes / 1048576 * 10) / 10;
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup });
    await cdp.detach();
  }
}
