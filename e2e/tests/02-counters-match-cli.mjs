// The counters on screen equal `folioscope run --json` for the same
// scenario at the same step: the app and the CLI share the core.
import { counters, expectCliCounters } from '../lib/counters.mjs';

export async function run({ newPage, cli, expectEq, text }) {
  const page = await newPage();
  // The default preset: v7.4-rc2 against v7.4-rc2+desc-ra and the kernel
  // before 0b9c0aeba938.
  const sides = [['', 'v7.4-rc2'], ['-b', 'v7.4-rc2+desc-ra'], ['-c', 'v7.4-rc2-before-0b9c0aeba938']];
  for (const step of [null, 1, 700, 150000]) {
    if (step !== null) {
      await page.evaluate((s) => {
        const r = document.querySelector('[data-testid="scrubber"]');
        r.value = String(s);
        r.dispatchEvent(new Event('input', { bubbles: true }));
      }, step);
    }
    for (const [suffix, kernel] of sides) {
    const args = ['run', '--kernel', kernel, '--pattern', 'rev', '--madvise', 'hugepage'];
    const j = cli(step === null ? args : [...args, '--step', String(step)]);
    expectCliCounters(expectEq, await counters(page, text, suffix), j, kernel);
    }
  }
  await page.context().close();
}
