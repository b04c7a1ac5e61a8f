// Predict mode with a clicker, keyboard only: PageDown asks and puts the
// focus in the answer, PageDown reveals, PageDown asks the next one. The
// question names the kernel and how far ahead the event is, as the CLI
// runs it. Esc closes every overlay: the question, help, open-from-text,
// the first visit's explanation, a banner.
const focused = (page) => page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);

// The default preset's first kernel, as the CLI runs it.
const RUN = ['run', '--kernel', 'v7.4-rc2', '--pattern', 'rev', '--madvise', 'hugepage'];

/** The smallest of 1, 2, 5, 10, 20, 50, ... at least n. */
function roundUp(n) {
  for (let decade = 1; ; decade *= 10) {
    for (const m of [1, 2, 5]) if (decade * m >= n) return decade * m;
  }
}

export async function run({ newPage, expect, expectEq, text, cli, shot }) {
  // Major faults, from step 1000 of the default preset.
  const page = await newPage('?v=1&preset=seed000-rev-huge&step=1000&predict=major&present=1', { width: 1024, height: 768 });
  await page.keyboard.press('PageDown');
  await page.waitForSelector('[data-testid="question"]');
  expectEq(await focused(page), 'answer', 'PageDown asks, and the answer field has the focus');
  let prompt = await text(page, 'question-prompt');
  let m = /^v7\.4-rc2: access (\d+), (\d+) access(?:es)? after step 1000, is a major fault\. How many pages does it read\?$/.exec(prompt);
  expect(m, `the question names the kernel and how far ahead: ${prompt}`);
  const access = Number(m[1]);
  expectEq(Number(m[2]), access - 1000, 'the distance');
  expectEq(await page.inputValue('[data-testid="jump"]'), String(access - 1), 'the view waits just before the fault');
  // On the presenter's one screen the question covers none of the
  // figures: it sits under the table, inside the 1024x768 window.
  const box = (id) => page.evaluate((id) => { const b = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect(); return { top: b.top, bottom: b.bottom }; }, id);
  const [q, table] = [await box('question'), await box('ra-table')];
  expect(q.top >= table.bottom && q.bottom <= 768, `the question (${q.top}..${q.bottom}) lies under the figures table (..${table.bottom}) and on screen`);
  await page.keyboard.type('7');
  await shot(page, 'predict-clicker-question');
  await page.keyboard.press('PageDown');
  const revealed = await text(page, 'revealed');
  // The fault's I/O as the CLI counts it: pages read by this access.
  const before = cli([...RUN, '--step', String(access - 1)]);
  const after = cli([...RUN, '--step', String(access)]);
  const pages = (after.bytes_read - before.bytes_read) / 4096;
  const off = Math.abs(pages - 7);
  expectEq(revealed, `Answer: ${pages} (pages read; you said 7, ${off === 0 ? 'exactly right' : `off by ${off}`})`, 'PageDown reveals');
  expectEq(await page.inputValue('[data-testid="jump"]'), String(access), 'the view at the fault');
  await page.keyboard.press('PageDown');
  prompt = await text(page, 'question-prompt');
  m = /access (\d+), (\d+) access(?:es)? after step (\d+)/.exec(prompt);
  expect(m && Number(m[1]) > access && Number(m[3]) === access, `another PageDown asks about the next one: ${prompt}`);
  expectEq(await focused(page), 'answer', 'the focus in the answer again');
  await page.keyboard.press('Escape');
  expect((await page.$('[data-testid="question"]')) === null, 'Esc closes the question');
  await page.context().close();

  // The crossing: its distance is the answer, so the question gives its
  // order of magnitude; the answer is where the CLI's mmap_miss passes
  // MMAP_LOTSAMISS (100).
  const cross = await newPage('?v=1&preset=seed000-rev-huge&step=0&predict=lotsamiss&present=1', { width: 1024, height: 768 });
  await cross.keyboard.press('PageDown');
  await cross.waitForSelector('[data-testid="question"]');
  prompt = await text(cross, 'question-prompt');
  await cross.keyboard.press('PageDown');
  const answer = Number(/^Answer: (\d+) \(access number\)$/.exec(await text(cross, 'revealed'))?.[1]);
  expect(answer > 0, await text(cross, 'revealed'));
  expectEq(prompt, `v7.4-rc2: mmap_miss will cross MMAP_LOTSAMISS within ${roundUp(answer)} accesses after step 0. At which access?`, 'the crossing question');
  const miss = (s) => cli([...RUN, '--step', String(s)]).mmap_miss;
  expect(miss(answer - 1) <= 100 && miss(answer) > 100, `mmap_miss passes 100 at access ${answer} (${miss(answer - 1)} → ${miss(answer)})`);
  await cross.context().close();

  // Esc closes every overlay, in the full view.
  const full = await newPage('?v=1&preset=seed000-rev-huge&step=1000&predict=readahead&bogus=1', { width: 1400, height: 900 });
  const gone = async (id) => (await full.$(`[data-testid="${id}"]`)) === null;
  expect(!(await gone('intro')) && !(await gone('banner')), 'the first visit\'s explanation and the banner are shown');
  await full.keyboard.press('Escape');
  expect(await gone('intro'), 'Esc closes the explanation');
  expect(await gone('banner'), 'Esc closes the banner');
  await full.keyboard.press('?');
  await full.waitForSelector('[data-testid="help"]');
  await full.keyboard.press('Escape');
  expect(await gone('help'), 'Esc closes help');
  await full.click('[data-testid="open-text"]');
  await full.click('[data-testid="open-text-input"]');
  await full.keyboard.press('Escape');
  expect(await gone('open-text-dialog'), 'Esc closes open-from-text, even from its text area');
  await full.click('[data-testid="ask"]');
  await full.waitForSelector('[data-testid="question"]');
  expectEq(await focused(full), 'answer', 'asking by the button also puts the focus in the answer');
  await full.keyboard.press('Escape');
  expect(await gone('question'), 'Esc closes the question from its answer field');
  await full.context().close();
}
