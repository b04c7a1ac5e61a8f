// While a long build runs, each strip shows how far it has come over its
// blank band (web/src/components/file_strip.rs): a bar and "building the
// model: N% · done of total accesses", moving forward, and hidden once the
// view is built; the xarray panel under them says it is drawn once the
// view is built and in sight. The link is e2e 06's long one, a backward
// MADV_SEQUENTIAL walk of 16 GiB: 4,194,304 accesses, over a second of
// building on any machine of this kind.
const LONG = '?v=1&size=16G&madvise=sequential&pattern=rev';
const ACCESSES = 4194304;
/// The preset chosen after it, and its accesses.
const OTHER = 'seed000-rev-huge';
const OTHER_ACCESSES = 524288;

/// Before the page's scripts run: records the progress element's state at
/// every change of the page, until the view is built.
function recordProgress() {
  window.__progress = [];
  const note = () => {
    const el = document.querySelector('[data-testid="build-progress"]');
    if (!el) return;
    const bar = el.querySelector('progress');
    const s = {
      hidden: el.hidden,
      shown: getComputedStyle(el).display !== 'none',
      value: Number(bar.value),
      max: Number(bar.max),
      text: el.textContent,
      ready: document.documentElement.getAttribute('data-ready') === '1',
      xarray: document.querySelector('[data-testid="xarray-heading"]')?.textContent,
    };
    const last = window.__progress[window.__progress.length - 1];
    if (!last || JSON.stringify(last) !== JSON.stringify(s)) window.__progress.push(s);
  };
  new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}

export async function run({ newPage, expect, log }) {
  const page = await newPage();
  await page.addInitScript(recordProgress);
  await page.goto(page.url().split('?')[0] + LONG);
  await page.waitForFunction(() => document.documentElement.getAttribute('data-ready') === '1', null, { timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const samples = await page.evaluate(() => window.__progress);
  const moving = samples.filter((s) => s.shown && s.value > 0 && s.value < s.max);
  log(`${moving.length} showings part way: "${moving[0]?.text}" ... "${moving[moving.length - 1]?.text}"`);
  expect(moving.length >= 2, `the build showed its progress ${moving.length} times part way`);
  for (const s of moving) {
    const m = /^building the model: (\d+)% · (\d+) of (\d+) accesses$/.exec(s.text);
    expect(m !== null, `the progress reads "${s.text}"`);
    expect(Number(m[2]) === s.value && Number(m[3]) === ACCESSES && s.max === ACCESSES,
      `"${s.text}" against a bar at ${s.value} of ${s.max}`);
    expect(Number(m[1]) === Math.floor((s.value * 100) / s.max), `"${s.text}": the percentage`);
  }
  for (let i = 1; i < moving.length; i++) {
    expect(moving[i].value >= moving[i - 1].value, `the progress went back from ${moving[i - 1].value} to ${moving[i].value}`);
  }
  const after = await page.evaluate(() => {
    const el = document.querySelector('[data-testid="build-progress"]');
    return { hidden: el.hidden, shown: getComputedStyle(el).display !== 'none' };
  });
  expect(after.hidden && !after.shown, 'the progress is hidden once the view is built');

  // A preset chosen from the menu: its build runs under the panels the
  // first view drew. The xarray panel has no tree to tell of until the
  // new view is built, and says so, rather than "0 nodes, height 0, 0
  // pages cached".
  await page.waitForSelector('[data-testid="xarray-heading"]', { state: 'attached' });
  const from = (await page.evaluate(() => window.__progress)).length;
  await page.selectOption('[data-testid="preset"]', OTHER);
  await page.waitForFunction((n) => document.querySelector('[data-testid="scrubber"]').max === String(n)
    && document.documentElement.getAttribute('data-ready') === '1', OTHER_ACCESSES, { timeout: 60000 });
  const switched = (await page.evaluate(() => window.__progress)).slice(from);
  const building = switched.filter((s) => s.shown && s.xarray !== undefined);
  expect(building.length > 0, 'the xarray panel stays on the page while the next view is built');
  for (const s of building) {
    expect(s.xarray === 'i_pages: drawn once the view is built and in sight', `the xarray panel during the build reads "${s.xarray}"`);
  }
  await page.context().close();
}
