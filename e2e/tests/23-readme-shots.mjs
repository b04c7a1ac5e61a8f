// The README's pictures, at 1400×900: compare mode where seed 000's
// kernels first part (docs/compare.png), and a story stop
// (docs/story.png, taken by 19-story.mjs as story-stop.png). Taken here
// so that they show the app as it is; copied to docs/ by hand.
import path from 'node:path';

export async function run({ newPage, expect, outDir }) {
  const page = await newPage('?v=1&preset=seed000-rev-huge', { width: 1400, height: 900 });
  // A reader of the README has seen the first visit's explanation.
  await page.keyboard.press('Escape');
  // Where the patched kernel first parts from v7.4-rc2, zoomed in.
  await page.click('[data-testid="compare-line-1"] [data-testid="jump-diff"]');
  await page.waitForSelector('[data-testid="diverge-note-1"]');
  const zoom = await page.textContent('[data-testid="zoom-strip"]');
  expect(!zoom.startsWith('pages 0..524287'), `zoomed to the pages that differ: ${zoom}`);
  // The inspectors have found the folios' events.
  await page.waitForFunction(() => ![...document.querySelectorAll('.inspector')].some((i) => i.textContent.includes('looking it up')), null, { timeout: 10000 });
  await page.screenshot({ path: path.join(outDir, 'compare.png') });
  await page.context().close();
}
