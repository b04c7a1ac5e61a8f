// The app loads from a sub-path, renders the default scenario, and draws
// the file strip.
export async function run({ newPage, expect, shot, text, log }) {
  const page = await newPage();
  log(`first render after ${page.loadMs} ms`);
  expect(page.loadMs < 3000, `the page took ${page.loadMs} ms to render`);
  expect((await page.textContent('h1')).includes('folioscope'), 'no title');
  expect((await text(page, 'kernel')) === 'v7.4-rc2', 'kernel label');
  // The default preset, seed000-rev-huge, compares every kernel of its row.
  expect((await page.$('[data-testid="strip-b"]')) !== null, 'the default preset compares a second kernel');
  expect((await page.$('[data-testid="strip-c"]')) !== null, 'and the kernel before 0b9c0aeba938');
  // The strip has pixels of more than one colour.
  const colours = await page.evaluate(() => {
    const c = document.querySelector('[data-testid="strip"]');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 4 * 7) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  });
  expect(colours >= 3, `the strip shows ${colours} colours`);
  await shot(page, 'app');
  await page.context().close();
}
