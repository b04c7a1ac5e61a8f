// The counters on screen equal `folioscope run --json` for the same
// scenario at the same step: the app and the CLI share the core.
async function counters(page, text, suffix = '') {
  return {
    step: (await text(page, 'step' + suffix)).split('/')[0].trim(),
    major: await text(page, 'major' + suffix),
    minor: await text(page, 'minor' + suffix),
    mb: await text(page, 'mb-read' + suffix),
    ios: await text(page, 'ios' + suffix),
    visits: await text(page, 'visits' + suffix),
    mmap_miss: await text(page, 'mmap-miss' + suffix),
  };
}

export async function run({ newPage, cli, expectEq, text }) {
  const page = await newPage();
  // The default preset: v7.4-rc2 against v7.4-rc2+desc-ra and the kernel
  // before 0b9c0aeba938.
  const sides = [['', 'v7.4-rc2'], ['-b', 'v7.4-rc2+desc-ra'], ['-c', 'v7.4-rc2-before-0b9c0aeba938']];
  for (const step of [null, 1, 700, 150000]) {
    if (step !== null) {
      await page.evaluate((s) => {
        const r = document.querySelector('[data-testid="scrubber"]');
        r.value = String(s);
        r.dispatchEvent(new Event('input', { bubbles: true }));
      }, step);
    }
    for (const [suffix, kernel] of sides) {
    const args = ['run', '--kernel', kernel, '--pattern', 'rev', '--madvise', 'hugepage'];
    const j = cli(step === null ? args : [...args, '--step', String(step)]);
    const c = await counters(page, text, suffix);
    expectEq(c.step, String(j.step), 'step');
    expectEq(c.major, String(j.major_faults), `major faults at ${j.step}`);
    expectEq(c.minor, String(j.minor_faults), `minor faults at ${j.step}`);
    expectEq(c.mb, (j.bytes_read / 1048576).toFixed(1), `MB read at ${j.step}`);
    expectEq(c.ios, String(j.read_ios), `I/Os at ${j.step}`);
    expectEq(c.visits, String(j.xa_node_visits), `node visits at ${j.step}`);
    expectEq(c.mmap_miss, String(j.mmap_miss), `mmap_miss at ${j.step}`);
    }
  }
  await page.context().close();
}
