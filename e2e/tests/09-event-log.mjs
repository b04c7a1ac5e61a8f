// The event log: lines name kernel functions, only the lines in sight have
// elements, scrolling shows older events, a click jumps to just after an
// event, and the kind and text filters hide lines.
export async function run({ newPage, expect, expectEq, shot }) {
  const page = await newPage('?v=1&preset=seed000-rev-huge&step=51234');
  const lines = () => page.$$eval('[data-testid="log-lines"] .log-line:not([hidden])', (ls) => ls.map((l) => ({
    text: l.textContent, current: l.classList.contains('current'), major: l.classList.contains('k-major'),
  })));
  const listed = async () => Number(await page.getAttribute('[data-testid="log-lines"]', 'data-lines'));
  const access = (t) => Number(t.match(/^#(\d+)/)[1]);

  const total = await listed();
  const top = await lines();
  expect(total > 30, `the log lists the recent events (${total})`);
  expect(top.length > 0 && top.length <= 19, `only the lines in sight are drawn (${top.length} of ${total})`);
  expect(top.every((l) => /^#\d+[a-z_]+: /.test(l.text)), `each line names a kernel function: ${top[0].text}`);
  expectEq(access(top[0].text), 51234, 'the newest line is the current access');
  for (let i = 1; i < top.length; i++) expect(access(top[i].text) <= access(top[i - 1].text), 'newest first');

  // Scrolled to the bottom, the oldest lines are drawn in place of the newest.
  await page.$eval('[data-testid="log-lines"]', (l) => { l.scrollTop = l.scrollHeight; });
  await page.waitForFunction((first) => {
    const l = document.querySelector('[data-testid="log-lines"] .log-line:not([hidden])');
    return l && l.textContent !== first;
  }, top[0].text);
  const bottom = await lines();
  expect(access(bottom[bottom.length - 1].text) < access(top[top.length - 1].text), 'scrolling shows older events');
  const box = await page.$eval('[data-testid="log-lines"]', (l) => {
    const r = l.getBoundingClientRect(); const last = [...l.querySelectorAll('.log-line:not([hidden])')].pop().getBoundingClientRect();
    return { bottom: r.bottom, last: last.bottom };
  });
  expect(Math.abs(box.bottom - box.last) < 2, `the last line ends at the bottom of the list (${box.last} vs ${box.bottom})`);

  // A click on a line jumps to just after that event, which becomes current.
  const target = (await page.$$('[data-testid="log-lines"] .log-line:not([hidden])'))[3];
  const clicked = await target.textContent();
  await target.click();
  await page.waitForSelector('[data-testid="log-lines"] .log-line:not([hidden]).current');
  await page.$eval('[data-testid="log-lines"]', (l) => { l.scrollTop = 0; });
  const after = await lines();
  const current = after.find((l) => l.current);
  expectEq(current && current.text, clicked, 'the clicked event is the current one');
  expectEq(access(after[0].text), access(clicked), 'the log now ends at the clicked event');
  await shot(page, 'event-log');

  // Filters: a kind switched off, then a text.
  await page.goto(page.url().replace(/step=\d+(-\d+)?/, 'step=51234'));
  await page.waitForSelector('html[data-warm="1"]', { state: 'attached' });
  expect((await lines()).some((l) => l.major), 'major faults are listed');
  await page.click('[data-testid="kind-major"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="log-lines"] .log-line:not([hidden]).k-major'));
  await page.click('[data-testid="kind-major"]');
  await page.fill('[data-testid="log-filter"]', 'MMAP_MISS');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="log-lines"] .log-line:not([hidden])')]
    .every((l) => l.textContent.toLowerCase().includes('mmap_miss')));
  const filtered = await lines();
  expect(filtered.length > 0, 'some lines speak of mmap_miss');
  await page.fill('[data-testid="log-filter"]', 'no such event');
  await page.waitForFunction(() => document.querySelector('[data-testid="log-lines"]').dataset.lines === '0');
  await page.fill('[data-testid="log-filter"]', '');
  await page.waitForFunction((n) => document.querySelector('[data-testid="log-lines"]').dataset.lines === String(n), total);

  // The filters travel in the link: set, the address keeps them, and the
  // copied link opens a page that filters the same way.
  await page.click('[data-testid="kind-major"]');
  await page.fill('[data-testid="log-filter"]', 'mmap_miss');
  await page.waitForFunction(() => location.search.includes('log_hide=major') && location.search.includes('log_text=mmap_miss'));
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.click('[data-testid="copy-link"]');
  const copied = await page.inputValue('[data-testid="shared-text"]');
  expect(copied.includes('log_hide=major') && copied.includes('log_text=mmap_miss'), `the copied link keeps the filters: ${copied}`);
  const shown = await listed();
  const again = await newPage('?' + copied.split('?')[1]);
  expectEq(await again.inputValue('[data-testid="log-filter"]'), 'mmap_miss', 'the text filter');
  expect(!(await again.isChecked('[data-testid="kind-major"]')), 'major faults stay hidden');
  expectEq(Number(await again.getAttribute('[data-testid="log-lines"]', 'data-lines')), shown, 'the same lines are listed');
  await again.context().close();
  await page.context().close();
}
