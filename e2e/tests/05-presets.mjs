// Every preset group loads: the first row of each seed, and for seed 004
// the read-path counts on screen equal the CLI's at the same step.
async function choose(page, id) {
  await page.selectOption('[data-testid="preset"]', id);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="preset"]').value === want, id);
}

export async function run({ newPage, expect, expectEq, text, cli, shot, log }) {
  const page = await newPage();
  const groups = await page.$$eval('[data-testid="preset"] optgroup', (gs) =>
    gs.map((g) => ({ label: g.label, ids: [...g.querySelectorAll('option')].map((o) => o.value) })));
  expectEq(groups.length, 3, 'three seed groups');
  for (const g of groups) {
    expect(g.ids.length > 0, `${g.label} has presets`);
    await choose(page, g.ids[0]);
    const steps = (await text(page, 'step')).split('/')[1].trim();
    expect(Number(steps) > 0, `${g.ids[0]} has accesses`);
    await shot(page, `preset-${g.ids[0]}`);
    log(`${g.ids[0]}: ${steps} accesses`);
  }
  // Seed 004, fallocated file with THP: 64k reads, stepped to read 99.
  const id = 'seed004-thpon-64k-falloc';
  expect(groups[2].ids.includes(id), `${id} is a preset`);
  await choose(page, id);
  await page.evaluate(() => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = '99';
    r.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const sides = [['', 'v7.1-rc5'], ['-b', 'v7.1-rc5+fbatch']];
  for (const [suffix, kernel] of sides) {
    const j = cli(['run', '--kernel', kernel, '--fs', 'tmpfs', '--tmpfs-huge', 'on',
      '--tmpfs-file', 'fallocated', '--pattern', 'read:64k', '--file-size', '1G', '--step', '99']);
    const rp = j.read_path;
    expectEq(await text(page, 'step' + suffix), `${j.step} / ${j.steps}`, 'step');
    expectEq(await text(page, 'rp-turns' + suffix), String(rp.iterations), `${kernel} loop turns`);
    expectEq(await text(page, 'rp-load' + suffix), String(rp.xas_load), `${kernel} xas_load`);
    expectEq(await text(page, 'rp-refs' + suffix), `${rp.folio_get} / ${rp.folio_put}`, `${kernel} refs`);
    expectEq(await text(page, 'rp-locks' + suffix), `${rp.folio_lock} / ${rp.folio_unlock}`, `${kernel} locks`);
    expectEq(await text(page, 'rp-zero' + suffix), (rp.bytes_zero_copied / 1048576).toFixed(1), `${kernel} zero-page MB`);
  }
  await shot(page, 'seed004-compare');
  await page.context().close();
}
