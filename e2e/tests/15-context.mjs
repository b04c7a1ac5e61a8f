// Context for reviewers, at 1400×900 and 1024×768: beside a seed preset,
// the seed's table exactly as `folioscope compare` prints it, with the
// thread on lore; every kernel variant and patch toggle with its
// description and source on the page; a note on an event that looks wrong
// but is faithful; and a first visit's explanation that can be dismissed
// and stays dismissed. (The buttons that open a real kernel's files are
// 11-recording's.)

export async function run({ newPage, expect, expectEq, text, cliText, shot }) {
  for (const viewport of [{ width: 1400, height: 900 }, { width: 1024, height: 768 }]) {
    const size = `${viewport.width}×${viewport.height}`;
    // The first visit's explanation, until dismissed, in this browser.
    const page = await newPage('?v=1&preset=seed003-cold', viewport);
    const intro = await text(page, 'intro');
    for (const w of ['access', 'strip', 'banner']) expect(intro.includes(w), `${size}: the explanation says what the ${w} is`);
    await page.click('[data-testid="intro-dismiss"]');
    expect((await page.$('[data-testid="intro"]')) === null, `${size}: dismissed`);
    await page.reload();
    await page.waitForSelector('html[data-warm="1"]', { state: 'attached' });
    expect((await page.$('[data-testid="intro"]')) === null, `${size}: and it stays dismissed`);

    // The seed's table: the CLI's, to the character, and the thread.
    await page.click('[data-testid="seed-table"] summary');
    const lore = await page.getAttribute('[data-testid="seed-lore"]', 'href');
    expect(lore.startsWith('https://lore.kernel.org/') && lore.includes('large%20folio%20readahead'), `${size}: the thread on lore: ${lore}`);
    await page.click('[data-testid="seed-table-run"]');
    await page.waitForSelector('[data-testid="seed-table-text"]', { timeout: 60000 });
    const table = await page.textContent('[data-testid="seed-table-text"]');
    expectEq(table.trim(), cliText(['compare', 'seed-003']).trim(), `${size}: the table as folioscope compare seed-003 prints it`);
    await shot(page, `seed-table-${viewport.width}`);

    // Every kernel's variant and patches, each with what it changes and
    // where it comes from, on the page (not in a tooltip).
    const variant = await text(page, 'variant-desc');
    expect(variant.includes('mm-unstable of 28 May 2026'), `${size}: the variant's description: ${variant}`);
    // The rows are made when the list first unfolds.
    await page.click('[data-testid="patches"] summary');
    await page.waitForSelector('[data-testid="patches"] .patch-row');
    const rows = await page.$$eval('[data-testid="patches"] .patch-row', (rs) => rs.map((r) => [r.querySelector('input').dataset.testid, r.querySelector('.patch-desc').textContent]));
    expect(rows.length >= 20, `${size}: every patch toggle (${rows.length})`);
    for (const [id, desc] of rows) expect(desc.includes(' \u2014 ') && desc.length > 40, `${size}: ${id} carries a description and a source: ${desc}`);
    const links = await page.$$eval('[data-testid="patches"] .patch-desc a', (as) => as.map((a) => a.href));
    expect(links.some((l) => l.startsWith('https://lore.kernel.org/')), `${size}: lore links are links`);
    expect((await page.$('[data-testid="variant-desc-b"]')) !== null, `${size}: the compared kernel's variant too`);
    await page.context().close();
  }

  // The seed-004 table too, which fits its cost model on every row.
  const shmem = await newPage('?v=1&preset=seed004-thpon-64k-falloc');
  await shmem.click('[data-testid="seed-table"] summary');
  await shmem.click('[data-testid="seed-table-run"]');
  await shmem.waitForSelector('[data-testid="seed-table-progress"]');
  await shmem.waitForSelector('[data-testid="seed-table-text"]', { timeout: 120000 });
  expectEq((await shmem.textContent('[data-testid="seed-table-text"]')).trim(), cliText(['compare', 'seed-004']).trim(), 'the table as folioscope compare seed-004 prints it');
  await shmem.context().close();

  // A faithful oddity: right after do_sync_mmap_readahead's window at the
  // PMD below the fault, page_cache_ra_order's starts at 0.
  const odd = await newPage('?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2&step=1');
  const notes = await text(odd, 'log-notes');
  expect(notes.includes('#1:') && notes.includes('never sets ra->start'), `the note: ${notes}`);
  const noted = await odd.$$eval('[data-testid="log-lines"] li.noted', (ls) => ls.map((l) => l.textContent));
  expect(noted.length === 1 && noted[0].includes('page_cache_ra_order: window start 0 '), `the noted line: ${noted}`);
  await shot(odd, 'faithful-note');
  await odd.context().close();
}
