// The scenario panel is drawn from the one table of parameters: every
// parameter has its control (VM_EXEC too), choosing a kernel variant keeps
// the patches switched by hand, tmpfs's huge= reads one way, compare mode
// takes up to three kernels, and a typo in one kernel of a link keeps the
// others.
const settle = (page, want) => page.waitForFunction((w) => location.search.includes(w), want);
const kernels = (page) => page.$$eval('.strip-kernel', (ks) => ks.map((k) => k.textContent.trim()));

export async function run({ newPage, expect, expectEq, text, cliText, shot }) {
  const page = await newPage('?v=1&size=64M');

  // Every parameter of the CLI's --help has a control, named by its option.
  const help = cliText(['run', '--help']);
  const options = [...help.matchAll(/^\s+--([a-z-]+) </gm)].map((m) => m[1]).filter((o) => o !== 'patch' && o !== 'step');
  expect(options.length >= 10, `the CLI lists the scenario options (${options})`);
  // A recording is opened with its own button (or dropped), and replays
  // the first file the program accessed, as the CLI does by default.
  const controls = { recording: 'open-recording' };
  for (const o of options.filter((o) => !['tmpfs-huge', 'tmpfs-file', 'hwpoison', 'recorded-file'].includes(o))) {
    const id = controls[o] || `p-${o}`;
    expect((await page.$(`[data-testid="${id}"]`)) !== null, `the page has a control for --${o}`);
  }
  const optionalExec = [...help.matchAll(/^\s+--exec \[/gm)].length === 1;
  expect(optionalExec, '--exec takes an optional value');
  expect((await page.$('[data-testid="p-exec"]')) !== null, 'the panel has VM_EXEC');
  await page.selectOption('[data-testid="p-exec"]', 'on');
  await settle(page, 'exec=on');

  // A patch switched by hand stays when another variant is chosen.
  await page.click('[data-testid="patches"] summary');
  await page.click('[data-testid="patch-desc-ra-2-hugepage"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="kernel"]').textContent.trim() === 'v6.18+desc-ra-2-hugepage');
  await page.selectOption('[data-testid="p-kernel"]', 'v7.4-rc2+desc-ra-2-hugepage');
  await page.waitForFunction(() => document.querySelector('[data-testid="kernel"]').textContent.trim() === 'v7.4-rc2+desc-ra-2-hugepage');
  expect(await page.isChecked('[data-testid="patch-desc-ra-2-hugepage"]'), 'the patch stays switched on');

  // Compare with two more kernels: three strips, and the link names them.
  await page.selectOption('[data-testid="p-compare"]', 'v7.4-rc2+desc-ra');
  await page.waitForSelector('[data-testid="p-compare-2"]');
  await page.selectOption('[data-testid="p-compare-2"]', 'v7.4-rc2-before-0b9c0aeba938');
  await page.waitForSelector('[data-testid="strip-c"]');
  expectEq(JSON.stringify(await kernels(page)),
    JSON.stringify(['v7.4-rc2+desc-ra-2-hugepage', 'v7.4-rc2+desc-ra', 'v7.4-rc2-before-0b9c0aeba938']), 'three kernels on screen');
  expect((await page.$('[data-testid="p-compare-3"]')) === null, 'three kernels at most');
  await settle(page, 'kernel=v7.4-rc2+desc-ra-2-hugepage,v7.4-rc2+desc-ra,v7.4-rc2-before-0b9c0aeba938');
  await shot(page, 'compare-three');

  // tmpfs: huge= always, read back as the CLI reads it.
  await page.selectOption('[data-testid="p-fs"]', 'tmpfs');
  await page.waitForSelector('[data-testid="p-tmpfs-huge"]');
  expectEq(await page.inputValue('[data-testid="p-pattern"]'), 'read:1048576', 'tmpfs starts with 1M reads');
  await page.selectOption('[data-testid="p-tmpfs-huge"]', 'always');
  await settle(page, 'tmpfs_huge=always');
  expectEq(await page.inputValue('[data-testid="p-tmpfs-huge"]'), 'always', 'huge=always stays chosen');
  await page.context().close();

  // A typo in one kernel of a link: the other kernel and the comparison stay,
  // and the banner names the bad one.
  const typo = await newPage('?v=1&size=64M&kernel=v7.4-rc3,v7.4-rc2+desc-ra');
  const banner = await text(typo, 'banner');
  expect(banner.includes('v7.4-rc3'), `the banner names the bad kernel: ${banner}`);
  expectEq(JSON.stringify(await kernels(typo)), JSON.stringify(['v6.18', 'v7.4-rc2+desc-ra']), 'the good kernel stays, compared');
  await typo.context().close();
}
