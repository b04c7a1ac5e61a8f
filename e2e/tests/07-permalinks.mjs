// Permalinks: opening one restores the counters and the step; bad
// parameters are named in a banner; the copied link reproduces the view;
// back and forward walk through the user's steps; a mail text opens.
async function counters(page, text, suffix = '') {
  return {
    step: await text(page, 'step' + suffix),
    major: await text(page, 'major' + suffix),
    minor: await text(page, 'minor' + suffix),
    mb: await text(page, 'mb-read' + suffix),
    mmap_miss: await text(page, 'mmap-miss' + suffix),
  };
}

const stepOf = async (page, text) => Number((await text(page, 'step')).split('/')[0]);

export async function run({ newPage, expect, expectEq, text, cli, cliText, shot }) {
  // The example link, against the CLI.
  const link = '?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=51234';
  const page = await newPage(link);
  for (const [suffix, kernel] of [['', 'v7.4-rc2'], ['-b', 'v7.4-rc2+desc-ra']]) {
    const j = cli(['run', '--kernel', kernel, '--pattern', 'rev', '--madvise', 'hugepage', '--step', '51234']);
    const c = await counters(page, text, suffix);
    expectEq(c.step, `51234 / ${j.steps}`, `${kernel} step`);
    expectEq(c.major, String(j.major_faults), `${kernel} major faults`);
    expectEq(c.minor, String(j.minor_faults), `${kernel} minor faults`);
    expectEq(c.mb, (j.bytes_read / 1048576).toFixed(1), `${kernel} MB read`);
    expectEq(c.mmap_miss, String(j.mmap_miss), `${kernel} mmap_miss`);
  }
  // The CLI writes the same link.
  const cliLink = cliText(['link', '--preset', 'seed000-rev-huge', '--step', '51234', '--base-url', '']).trim();
  expectEq(cliLink, '?v=1&preset=seed000-rev-huge&step=51234', 'folioscope link');
  // The address settles on the canonical link, without a new entry: the
  // preset compares three kernels, so the link's two stay named.
  await page.waitForFunction(() => location.search === '?v=1&preset=seed000-rev-huge&kernel=v7.4-rc2,v7.4-rc2+desc-ra&step=51234');
  expect((await page.$('[data-testid="strip-c"]')) === null, 'two kernels, as the link names');

  // Bad parameters: named, and left at their defaults.
  const bad = await newPage('?v=1&size=0&bogus=1&step=abc&zoom=9-2');
  const banner = await text(bad, 'banner');
  for (const p of ['size', 'bogus', 'step', 'zoom']) expect(banner.includes(p), `the banner names ${p}: ${banner}`);
  expectEq(await text(bad, 'kernel'), 'v6.18', 'the rest of the link still opens');
  await shot(bad, 'link-ignored');
  await bad.context().close();

  // Move, zoom, copy the link, open it elsewhere: the same view.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Shift+ArrowRight');
  const strip = await page.$('[data-testid="strip"]');
  const box = await strip.boundingBox();
  await page.mouse.move(box.x + box.width * 0.9, box.y + 20);
  await page.mouse.wheel(0, -200);
  await page.waitForTimeout(100);
  await page.click('[data-testid="copy-link"]');
  const copied = await page.inputValue('[data-testid="shared-text"]');
  expect(copied.includes('step=51232') && copied.includes('ev=1') && copied.includes('zoom='), `copied ${copied}`);
  const before = { ...(await counters(page, text)), zoom: await text(page, 'zoom-strip'), jump: await page.inputValue('[data-testid="jump"]') };
  const again = await newPage('?' + copied.split('?')[1]);
  const after = { ...(await counters(again, text)), zoom: await text(again, 'zoom-strip'), jump: await again.inputValue('[data-testid="jump"]') };
  expectEq(JSON.stringify(after), JSON.stringify(before), 'the copied link opens the same view');
  await again.context().close();

  // Back and forward walk through the steps, one entry per pause.
  const nav = await newPage('?v=1&preset=seed000-rev-huge&step=100');
  await nav.waitForTimeout(700);
  for (const s of ['200', '300']) {
    await nav.fill('[data-testid="jump"]', s);
    await nav.press('[data-testid="jump"]', 'Enter');
    await nav.waitForTimeout(700);
  }
  // Playing for a while adds at most one entry once it stops.
  await nav.evaluate(() => document.activeElement.blur());
  await nav.keyboard.press(' ');
  await nav.waitForTimeout(500);
  await nav.keyboard.press(' ');
  await nav.waitForTimeout(700);
  const played = await stepOf(nav, text);
  expect(played > 300, `played to ${played}`);
  await nav.goBack();
  await nav.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('300 '));
  await nav.goBack();
  await nav.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('200 '));
  await nav.goForward();
  await nav.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('300 '));

  // Copy as text, then open that text in a fresh page.
  await nav.click('[data-testid="copy-text"]');
  const mail = await nav.inputValue('[data-testid="shared-text"]');
  // The link is one line, never cut; every other line fits 78 columns.
  const linkLine = mail.split('\n').find((l) => l.includes('?v=1'));
  expect(linkLine && linkLine.startsWith('http') && !linkLine.includes(' '), `the link is whole on its line: ${linkLine}`);
  expect(mail.split('\n').every((l) => l === linkLine || l.length <= 78), 'the text fits 78 columns');
  expect(mail.includes('major faults'), 'the text has the figures');
  const fresh = await newPage();
  await fresh.click('[data-testid="open-text"]');
  await fresh.fill('[data-testid="open-text-input"]', 'some words\n' + mail + '\nthanks');
  await fresh.click('[data-testid="open-text-go"]');
  await fresh.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('300 '));
  // The mail round trip through a reply: quoted twice, and cut at 40
  // columns by a mail client, the link opens the same view.
  const rewrap = (text, width) => text.split('\n').flatMap((line) => {
    const quote = line.match(/^(> ?)*/)[0];
    const out = [];
    let rest = line;
    while (rest.length > width) {
      let cut = rest.lastIndexOf(' ', width);
      if (cut <= quote.length) cut = width;
      out.push(rest.slice(0, cut));
      rest = quote + rest.slice(cut).trimStart();
    }
    out.push(rest);
    return out;
  }).join('\n');
  const reply = rewrap(mail.split('\n').map((l) => '>> ' + l).join('\n'), 40);
  expect(reply.split('\n').length > mail.split('\n').length, 'the reply was re-wrapped');
  await fresh.evaluate(() => document.activeElement && document.activeElement.blur());
  await fresh.keyboard.press('Home');
  await fresh.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('0 '));
  await fresh.click('[data-testid="open-text"]');
  await fresh.fill('[data-testid="open-text-input"]', 'On Monday someone wrote:\n' + reply + '\n\nI see it too.');
  await fresh.click('[data-testid="open-text-go"]');
  await fresh.waitForFunction(() => document.querySelector('[data-testid="step"]').textContent.startsWith('300 '));
  expectEq(await text(fresh, 'kernel'), 'v7.4-rc2', 'the kernel survives the reply');
  expect((await fresh.$('[data-testid="banner"]')) === null, 'nothing in the reply was ignored');
  // Text without a link is refused, naming the field.
  await fresh.click('[data-testid="open-text"]');
  await fresh.fill('[data-testid="open-text-input"]', 'no link here');
  await fresh.click('[data-testid="open-text-go"]');
  expect((await text(fresh, 'open-text-error')).startsWith('text:'), 'the error names the text');
  await fresh.context().close();
  await nav.context().close();
  await page.context().close();
}
