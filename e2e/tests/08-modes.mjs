// Embed and presenter frames, predict mode, and a probe report dropped on
// the app.
import fs from 'node:fs';
import path from 'node:path';

export async function run({ newPage, expect, expectEq, text, shot, repo }) {
  // Embedded: strip, ra panel, timeline, a link back; it fits a small frame.
  const embed = await newPage('?v=1&preset=seed000-rev-huge&step=20000&embed=1', { width: 640, height: 420 });
  expect((await embed.$('[data-testid="embed"]')) !== null, 'the embed frame');
  expect((await embed.$('aside.scenario')) === null, 'no scenario panel when embedded');
  expect((await embed.$('[data-testid="plots"]')) === null, 'no plots when embedded');
  const full = await embed.getAttribute('[data-testid="full-view"]', 'href');
  expect(full.includes('step=20000') && !full.includes('embed'), `the full-view link ${full}`);
  const width = await embed.evaluate(() => document.documentElement.scrollWidth);
  expect(width <= 640, `the embed fits 640 px (is ${width})`);
  await shot(embed, 'embed');
  await embed.context().close();

  // Presenter: large type, no editing panel; the clicker's keys step by
  // event; b blanks the screen.
  const pres = await newPage('?v=1&preset=seed000-rev-huge&step=1000&present=1');
  expect((await pres.$('[data-testid="presenter-view"]')) !== null, 'presenter frame');
  expect((await pres.$('aside.scenario')) === null, 'no editing panel in presenter mode');
  const size = await pres.evaluate(() => parseFloat(getComputedStyle(document.querySelector('.app')).fontSize));
  expect(size >= 18, `large type (${size}px)`);
  await pres.keyboard.press('PageDown');
  const label = await pres.textContent('label.jump');
  const moved = /event 1 of \d+/.test(label) || (await pres.inputValue('[data-testid="jump"]')) === '1001';
  expect(moved, `PageDown steps one event forward: ${label}`);
  await pres.keyboard.press('PageUp');
  expectEq(await pres.inputValue('[data-testid="jump"]'), '1000', 'PageUp steps back');
  await shot(pres, 'presenter');
  await pres.keyboard.press('b');
  expect((await pres.$('[data-testid="blank"]')) !== null, 'b blanks the screen');
  await pres.keyboard.press('b');
  expect((await pres.$('[data-testid="blank"]')) === null, 'b again brings it back');
  await pres.context().close();

  // Predict: stop before the next readahead, ask, take an answer, reveal.
  const pred = await newPage('?v=1&preset=seed000-fwd-seq&step=5000&predict=readahead');
  await pred.click('[data-testid="ask"]');
  await pred.waitForSelector('[data-testid="question"]');
  const prompt = await text(pred, 'question-prompt');
  expect(prompt.includes('readahead window'), prompt);
  await pred.fill('[data-testid="answer"]', '0');
  await shot(pred, 'predict-question');
  await pred.click('[data-testid="reveal"]');
  const revealed = await text(pred, 'revealed');
  expect(/^Answer: \d+ \(page index; you said 0/.test(revealed), revealed);
  await shot(pred, 'predict-revealed');
  await pred.context().close();

  // A probe report dropped on the app: the real kernel's strip, and no
  // difference, since the model matches this machine's kernel.
  const json = fs.readFileSync(path.join(repo, 'cli/tests/fixtures/2g-stride-64-normal.json'), 'utf8');
  const drop = await newPage();
  await drop.evaluate((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'probe.json', { type: 'application/json' }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, json);
  await drop.waitForSelector('[data-testid="probe-overlay"]', { timeout: 20000 });
  const diff = await text(drop, 'probe-diff');
  expect(diff.startsWith('same residency and folio layout'), diff);
  expectEq(await text(drop, 'step'), '8192 / 8192', 'the model stands at the report step');
  await shot(drop, 'probe-overlay');
  await drop.context().close();
}
