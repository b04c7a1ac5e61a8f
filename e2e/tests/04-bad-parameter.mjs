// A bad parameter shows a banner naming the field; the last good state stays.
export async function run({ newPage, expect, text, shot }) {
  const page = await newPage();
  const before = await text(page, 'major');
  for (const [id, value, field] of [['p-file-size', '0', 'file size'], ['p-pattern', 'stride:0', 'pattern'], ['p-file-size', 'lots', 'file size']]) {
    await page.fill(`[data-testid="${id}"]`, value);
    await page.press(`[data-testid="${id}"]`, 'Tab');
    await page.waitForFunction((f) => {
      const b = document.querySelector('[data-testid="banner"]');
      return b && b.textContent.trim().startsWith(f);
    }, field, { timeout: 5000 }).catch(() => {});
    const banner = await text(page, 'banner');
    expect(banner.startsWith(field), `banner names ${field}: "${banner}"`);
    expect((await text(page, 'major')) === before, 'the last good state stays');
    if (field === 'pattern') await shot(page, 'banner');
    // Escape dismisses the banner, even from the field just edited.
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="banner"]', { state: 'detached' });
  }
  await page.context().close();
}
