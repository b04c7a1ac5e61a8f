// A bad parameter shows a banner naming the field; the last good state stays.
export async function run({ newPage, expect, text, shot }) {
  const page = await newPage();
  const before = await text(page, 'major');
  for (const [id, value, field] of [['p-file-size', '0', 'file size'], ['p-pattern', 'stride:0', 'pattern'], ['p-file-size', 'lots', 'file size']]) {
    await page.fill(`[data-testid="${id}"]`, value);
    await page.press(`[data-testid="${id}"]`, 'Tab');
    await page.waitForSelector('[data-testid="banner"]');
    const banner = await text(page, 'banner');
    expect(banner.startsWith(field), `banner names ${field}: "${banner}"`);
    expect((await text(page, 'major')) === before, 'the last good state stays');
    if (field === 'pattern') await shot(page, 'banner');
    await page.keyboard.press('Escape');
  }
  await page.context().close();
}
