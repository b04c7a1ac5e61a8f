// A jump made as soon as the view is drawn, before the page is warm, lands
// where the CLI says. The 16 GiB link's runs take their checkpoints only
// after the view is drawn (core/src/timeline/index.rs, `Indexing::Later`;
// web/src/indexing.rs), so such a jump seeks from the start; once the
// checkpoints are set, the same step shows the same counters.
import { BIG } from '../lib/trace.mjs';
import { counters, expectCliCounters } from '../lib/counters.mjs';

/// Before the page's scripts run: gives the page a way to move its
/// scrubber, and uses it to jump to `step` in the microtask that follows
/// `data-ready="1"`, before the warm-up's timer can fire. A jump sent from
/// the test once it saw the attribute raced the warm-up: on a fresh
/// machine the page was warm by the time it arrived.
function jumpWhenReady(step) {
  // Moves the scrubber to `to`; whether the page was warm then.
  window.__folioscopeJump = (to) => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = String(to);
    r.dispatchEvent(new Event('input', { bubbles: true }));
    return document.documentElement.getAttribute('data-warm') === '1';
  };
  const observer = new MutationObserver(() => {
    if (document.documentElement.getAttribute('data-ready') !== '1') return;
    observer.disconnect();
    window.__folioscopeWarmAtJump = window.__folioscopeJump(step);
  });
  observer.observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
}

/// Moves the scrubber to `step` (after `jumpWhenReady`'s load).
function jump(page, step) {
  return page.evaluate((s) => window.__folioscopeJump(s), step);
}

export async function run({ newPage, expect, expectEq, text, cli }) {
  const page = await newPage(BIG);
  const step = 25000;
  // Load the link again and jump the moment its view is ready.
  await page.addInitScript(jumpWhenReady, step);
  await page.reload();
  await page.waitForFunction(() => '__folioscopeWarmAtJump' in window, null, { timeout: 15000 });
  const warmAtJump = await page.evaluate(() => window.__folioscopeWarmAtJump);
  expect(!warmAtJump, 'the jump came before the page was warm (before the checkpoints were set)');
  const sides = [['', 'v7.4-rc2'], ['-b', 'v7.4-rc2+desc-ra']];
  const before = [];
  for (const [suffix, kernel] of sides) {
    const j = cli(['run', '--kernel', kernel, '--file-size', '16G', '--madvise', 'hugepage', '--pattern', 'random:1:1', '--step', String(step)]);
    const c = await counters(page, text, suffix);
    expectCliCounters(expectEq, c, j, `${kernel} before the page was warm`);
    before.push(c);
  }
  // Warm, away and back: from the checkpoints now.
  await page.waitForSelector('html[data-warm="1"]', { state: 'attached', timeout: 15000 });
  await jump(page, 3000);
  await text(page, 'step');
  await jump(page, step);
  for (const [i, [suffix, kernel]] of sides.entries()) {
    const c = await counters(page, text, suffix);
    expectEq(JSON.stringify(c), JSON.stringify(before[i]), `${kernel} at step ${step}, warm against before`);
  }
}
