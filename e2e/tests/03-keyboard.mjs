// Keyboard: Home, arrows, End, space to play and pause, ? for help.
export async function run({ newPage, expect, expectEq, text, shot }) {
  const page = await newPage();
  const step = async () => Number((await text(page, 'step')).split('/')[0]);
  const len = Number((await text(page, 'step')).split('/')[1]);
  await page.keyboard.press('Home');
  expectEq(await step(), 0, 'Home goes to step 0');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expectEq(await step(), 2, 'two steps forward');
  await page.keyboard.press('ArrowLeft');
  expectEq(await step(), 1, 'one step back');
  await page.keyboard.press('Shift+ArrowRight');
  const major = await step();
  expect(major > 1, `shift+→ jumps to the next major fault (at ${major})`);
  await page.keyboard.press('End');
  expectEq(await step(), len, 'End goes to the last step');
  await page.keyboard.press('Home');
  await page.keyboard.press(' ');
  await page.waitForTimeout(400);
  await page.keyboard.press(' ');
  const played = await step();
  expect(played > 0, `playing moved the step (to ${played})`);
  await page.waitForTimeout(200);
  expectEq(await step(), played, 'space paused');
  await page.keyboard.press('?');
  await page.waitForSelector('[data-testid="help"]');
  await shot(page, 'help');
  await page.keyboard.press('?');
  expect((await page.$('[data-testid="help"]')) === null, 'help closes again');
  await page.context().close();
}
