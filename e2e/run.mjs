// End-to-end tests of the built dist/ in headless Chromium.
//
// The runner serves dist/ from a sub-path of a local server (so relative
// asset URLs are exercised), blocks and reports any request that leaves it
// (the timing test's timed loads, `timedLoad`, report it without blocking),
// fails on any console error or page error, and runs every module in
// tests/ in name order. Screenshots go to $FOLIOSCOPE_OUT.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wasmMemoryMb } from './lib/trace.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const env = (k) => {
  const v = process.env[k];
  if (!v) { console.error(`e2e: ${k} is not set (run through cargo xtask e2e)`); process.exit(2); }
  return v;
};
const DIST = env('FOLIOSCOPE_DIST');
const OUT = env('FOLIOSCOPE_OUT');
const CLI = env('FOLIOSCOPE_CLI');
const require = createRequire(path.join(env('FOLIOSCOPE_TOOLS'), 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');

const SUB = '/pages/folioscope/';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };

function serve() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (!url.pathname.startsWith(SUB)) { res.writeHead(404); res.end('not under ' + SUB); return; }
    let rel = url.pathname.slice(SUB.length) || 'index.html';
    const file = path.join(DIST, path.normalize(rel));
    if (!file.startsWith(DIST) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

class Failure extends Error {}
export function expect(cond, msg) { if (!cond) throw new Failure(msg); }
export function expectEq(a, b, msg) { if (a !== b) throw new Failure(`${msg}: got ${JSON.stringify(a)}, want ${JSON.stringify(b)}`); }

const server = await serve();
const base = `http://127.0.0.1:${server.address().port}${SUB}`;
const browser = await chromium.launch({
  executablePath: env('FOLIOSCOPE_CHROMIUM'),
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});

const problems = [];
async function newPage(query = '', viewport = { width: 1400, height: 900 }, options = {}) {
  const context = await browser.newContext({ viewport, ...options });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith(base)) return route.continue();
    problems.push(`network request outside the site: ${u}`);
    return route.abort();
  });
  const t0 = Date.now();
  await page.goto(base + query);
  await page.waitForSelector('[data-testid="strip"]', { timeout: 15000 });
  page.loadMs = Date.now() - t0;
  // The app builds the view's timelines after the first paint, then
  // takes a short run's checkpoints and rehearses a jump once
  // (web/src/hooks/use_warm_up.rs); tests start when it is done, as a
  // user's first move would.
  await page.waitForSelector('html[data-warm="1"]', { state: 'attached', timeout: 15000 });
  return page;
}

/// A fresh load of `query` timed as a reader's browser makes it, for the
/// timing test's first renders: nothing of the harness runs in the page
/// while it loads but the browser's observer of long tasks, called only
/// once a task has taken over 50 ms. Pages from `newPage` send every
/// request through Playwright (to block any that leave the site) and
/// poll for selectors at every frame; in eight loads of each kind,
/// alternated, the default view's first render took 423 ms that way
/// against 374 with neither (median; 388 routed only, 410 polled only;
/// 2026-12-07). Requests that leave the site are reported here, not
/// blocked. Returns when the page marked `folioscope-ready`, its first
/// contentful paint and `folioscope-warm`, in ms from navigation, and
/// the tasks of over 50 ms until the warm mark (`long_tasks`: when each
/// started, in ms from navigation, and how long it took), which kept the
/// page from answering input that long. With `held`, also what the
/// warm page holds, read once its marks are in: its wasm memory
/// (`wasm_memory_mb`) and its scenario's file size as the scenario panel
/// shows it (`file_size`).
async function timedLoad(query = '', viewport = { width: 1400, height: 900 }, { held = false } = {}) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    window.__folioscopeLongTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__folioscopeLongTasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask' });
  });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => { if (!r.url().startsWith(base)) problems.push(`network request outside the site: ${r.url()}`); });
  try {
    await page.goto(base + query, { waitUntil: 'commit' });
    // One call that waits in the page for the last mark, with nothing
    // polled meanwhile.
    const marks = await page.evaluate(() => new Promise((resolve, reject) => {
      const at = (name) => {
        const e = performance.getEntriesByName(name)[0];
        return e ? e.startTime : null;
      };
      const done = () => at('folioscope-warm') !== null;
      const finish = () => resolve({ ready: at('folioscope-ready'), paint: at('first-contentful-paint'), warm: at('folioscope-warm') });
      if (done()) { finish(); return; }
      setTimeout(() => reject(new Error('the view was not warm within 90 s')), 90000);
      new PerformanceObserver((list, observer) => {
        if (done()) { observer.disconnect(); finish(); }
      }).observe({ type: 'mark', buffered: true });
    }));
    // The observer hears of a task after it ends: the task that set the
    // warm mark may still be on its way.
    marks.long_tasks = await page.evaluate((warm) => new Promise((resolve) => setTimeout(() => resolve(
      window.__folioscopeLongTasks.filter(([at]) => at < warm).map(([at, ms]) => [Math.round(at), Math.round(ms)])), 100)), marks.warm);
    if (!held) return marks;
    const fileSize = await page.evaluate(() => document.querySelector('[data-testid="p-file-size"]').value);
    return { ...marks, wasm_memory_mb: await wasmMemoryMb(page), file_size: fileSize };
  } finally {
    await context.close();
  }
}

/// Waits until no block under the timeline holds an older step.
async function settled(page) {
  await page.waitForFunction(() => !document.querySelector('[data-held="1"]'), null, { timeout: 5000 });
}

/// A screenshot of the whole page, as a reader who scrolls down sees it.
/// Chromium's full-page capture leaves out what `content-visibility:
/// auto` skips below the window (the panels under the timeline), so
/// for the capture that is turned off, and back on after.
async function shot(page, name) {
  const style = await page.addStyleTag({ content: '* { content-visibility: visible !important; }' });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: path.join(OUT, name + '.png'), fullPage: true });
  await style.evaluate((el) => el.remove());
}

const ctx = {
  base, newPage, timedLoad, expect, expectEq,
  shot,
  cli: (args) => JSON.parse(execFileSync(CLI, [...args, '--json'], { encoding: 'utf8' })),
  cliText: (args) => execFileSync(CLI, args, { encoding: 'utf8' }),
  repo: path.dirname(here),
  // Blocks out of sight wait for the view to stand still before they
  // follow a move (web/src/components/held_out_of_sight.rs); a reader
  // who stops finds them there, and so does this one.
  settled,
  text: async (page, id) => {
    await settled(page);
    return (await page.textContent(`[data-testid="${id}"]`)).trim();
  },
  log: (...a) => console.log('   ', ...a),
  outDir: OUT,
};

// FOLIOSCOPE_ONLY=06 runs only the test files whose names contain it;
// FOLIOSCOPE_ONLY=11,13 those that contain any of them. FOLIOSCOPE_SKIP
// leaves out those whose names contain any of its list.
const only = (process.env.FOLIOSCOPE_ONLY || '').split(',');
const skip = (process.env.FOLIOSCOPE_SKIP || '').split(',').filter(Boolean);
const files = fs.readdirSync(path.join(here, 'tests'))
  .filter((f) => f.endsWith('.mjs') && only.some((o) => f.includes(o)) && !skip.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  const mod = await import(path.join(here, 'tests', f));
  const before = problems.length;
  const t0 = Date.now();
  try {
    await mod.run(ctx);
    if (problems.length > before) throw new Failure(problems.slice(before).join('; '));
    console.log(`ok   ${f} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${f}: ${e.message}`);
  }
}
await browser.close();
server.close();
if (failed) { console.log(`${failed} of ${files.length} e2e test files failed`); process.exit(1); }
console.log(`all ${files.length} e2e test files passed; screenshots in ${OUT}`);
