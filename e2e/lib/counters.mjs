// The counters a kernel's panels show, and their check against
// `folioscope run --json` at the same step: the app and the CLI share the
// core.

/// Side `suffix`'s counters on `page` ('' for the first kernel, '-b' for
/// the second), read with the tests' `text`.
export async function counters(page, text, suffix = '') {
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

/// Each of `c` (from `counters`) equals the CLI's report `j`; `what` names
/// the view in a failure.
export function expectCliCounters(expectEq, c, j, what) {
  expectEq(c.step, String(j.step), `${what}: step`);
  expectEq(c.major, String(j.major_faults), `${what}: major faults at ${j.step}`);
  expectEq(c.minor, String(j.minor_faults), `${what}: minor faults at ${j.step}`);
  expectEq(c.mb, (j.bytes_read / 1048576).toFixed(1), `${what}: MB read at ${j.step}`);
  expectEq(c.ios, String(j.read_ios), `${what}: I/Os at ${j.step}`);
  expectEq(c.visits, String(j.xa_node_visits), `${what}: node visits at ${j.step}`);
  expectEq(c.mmap_miss, String(j.mmap_miss), `${what}: mmap_miss at ${j.step}`);
}
