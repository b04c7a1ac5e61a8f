// A jump made as soon as the view is drawn, before the page is warm, lands
// where the CLI says. The 16 GiB link's runs take their checkpoints only
// after the view is drawn (core/src/timeline/index.rs, `Indexing::Later`;
// web/src/indexing.rs), so such a jump seeks from the start; once the
// checkpoints are set, the same step shows the same counters.
import { BIG } from '../lib/trace.mjs';
import { counters, expectCliCounters } from '../lib/counters.mjs';

/// Moves the scrubber to `step`; whether the page was warm then.
function jump(page, step) {
  return page.evaluate((s) => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = String(s);
    r.dispatchEvent(new Event('input', { bubbles: true }));
    return document.documentElement.getAttribute('data-warm') === '1';
  }, step);
}

export async function run({ newPage, expect, expectEq, text, cli }) {
  const page = await newPage(BIG);
  const step = 25000;
  // Load the link again and jump the moment its view is ready.
  await page.reload();
  await page.waitForSelector('html[data-ready="1"]', { state: 'attached', timeout: 15000 });
  const warmAtJump = await jump(page, step);
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
