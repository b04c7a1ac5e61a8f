// Accessibility, as Chromium's own accessibility tree sees the page: every
// control and every canvas has a name; the step buttons are named in words,
// not glyphs; every element Tab reaches shows a focus outline; the timeline
// controls are a few key presses from the top, through the skip link; and
// the counters are a live region that changes on a step (and is quiet
// while playing).

// Roles a user operates, or that stand for a picture (the canvases).
const NAMED = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'textbox',
  'searchbox', 'spinbutton', 'slider', 'menuitem', 'tab', 'DisclosureTriangle', 'img', 'image', 'Canvas']);

async function axTree(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  return nodes.filter((n) => !n.ignored).map((n) => ({
    role: n.role?.value, name: (n.name?.value || '').trim(), dom: n.backendDOMNodeId,
  }));
}

export async function run({ newPage, expect, expectEq, text, shot, log }) {
  // The default view: three kernels, with the plots, logs and xarrays.
  const page = await newPage('');
  const nodes = await axTree(page);
  const unnamed = nodes.filter((n) => NAMED.has(n.role) && n.name === '');
  log(`${nodes.filter((n) => NAMED.has(n.role)).length} controls and pictures in the accessibility tree`);
  expect(unnamed.length === 0, `${unnamed.length} without a name: ${unnamed.slice(0, 8).map((n) => n.role).join(', ')}`);
  // Every canvas is in the tree as a named picture, but those that draw
  // the scrubber's step (its range input, a named slider, says it).
  const canvases = await page.evaluate(() => [...document.querySelectorAll('canvas')]
    .filter((c) => c.getClientRects().length > 0)
    .filter((c) => !(c.closest('.scrubber-wrap') && c.getAttribute('aria-hidden') === 'true'))
    .map((c) => ({ id: c.dataset.testid, role: c.getAttribute('role'), label: c.getAttribute('aria-label') || '' })));
  const bare = canvases.filter((c) => c.role !== 'img' || c.label === '');
  expect(canvases.length >= 3 && bare.length === 0, `canvases without a picture's name: ${bare.map((c) => c.id).join(', ')}`);
  const filter = nodes.find((n) => n.role === 'searchbox');
  expect(filter && filter.name !== 'filter text', `the log filter's name is more than its placeholder: ${filter && filter.name}`);

  // The step buttons are named in words.
  const buttons = nodes.filter((n) => n.role === 'button').map((n) => n.name);
  for (const name of ['first step', 'previous event', 'previous access', 'play', 'next access', 'next event', 'last step']) {
    expect(buttons.includes(name), `no button named "${name}"`);
  }
  const glyphs = buttons.filter((b) => /^[\s◀▶|×<>]*$/.test(b));
  expect(glyphs.length === 0, `buttons named by glyphs: ${glyphs.join(' ')}`);

  // Tab from the top: the skip link comes first, shows itself, and takes
  // the focus to the timeline; play is a few presses on.
  const focused = () => page.evaluate(() => {
    const el = document.activeElement;
    const s = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    return {
      tag: el.tagName.toLowerCase(), id: el.dataset.testid || el.id || '', name: el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30),
      outline: s.outlineStyle, width: parseFloat(s.outlineWidth), visible: r.width > 0 && r.bottom > 0 && r.top < innerHeight,
    };
  });
  await page.keyboard.press('Tab');
  let f = await focused();
  expectEq(f.id, 'skip-link', 'the first Tab reaches the skip link');
  expect(f.visible, 'the focused skip link is on screen');
  await shot(page, 'skip-link');
  await page.keyboard.press('Enter');
  let presses = 2;
  while ((await focused()).id !== 'play' && presses < 12) {
    await page.keyboard.press('Tab');
    presses++;
  }
  log(`play is reached in ${presses} key presses`);
  expect(presses <= 6, `play took ${presses} key presses`);
  // Space on the focused play button plays, and once more pauses.
  await page.keyboard.press('Space');
  await page.waitForTimeout(300);
  expectEq(await page.getAttribute('[data-testid="counters"]', 'aria-live'), 'off', 'the counters are quiet while playing');
  expectEq(await page.getAttribute('[data-testid="inspector"]', 'aria-live'), 'off', 'the folio inspector is quiet while playing');
  await page.keyboard.press('Space');
  await page.waitForTimeout(100);
  expectEq(await text(page, 'play'), 'play', 'Space on the play button pauses again');

  // Every element Tab reaches shows an outline.
  // A click on the header starts the next Tab from there.
  await page.mouse.click(3, 3);
  const seen = [];
  for (let i = 0; i < 70; i++) {
    await page.keyboard.press('Tab');
    f = await focused();
    if (f.tag === 'body') break;
    seen.push(f);
  }
  const plain = seen.filter((s) => s.outline === 'none' || !(s.width > 0));
  log(`${seen.length} elements tabbed through`);
  expect(seen.length >= 30, `only ${seen.length} elements took the focus`);
  expect(plain.length === 0, `focused without an outline: ${plain.slice(0, 6).map((s) => `${s.tag}[${s.id}] ${s.name}`).join('; ')}`);

  // The counters are a live region, and a step changes what it says.
  await page.evaluate(() => document.activeElement.blur());
  expectEq(await page.getAttribute('[data-testid="counters"]', 'aria-live'), 'polite', 'the counters are a polite live region');
  expectEq(await page.getAttribute('[data-testid="inspector"]', 'aria-live'), 'polite', 'the folio inspector speaks again once play stops');
  await page.keyboard.press('Home');
  const before = await text(page, 'counters');
  await page.keyboard.press('ArrowRight');
  const after = await text(page, 'counters');
  expect(before !== after && after.includes('1 / '), `a step changes the live counters: ${after.slice(0, 60)}`);
  const live = nodes.filter((n) => n.role === 'region' && n.name === 'timeline');
  expectEq(live.length, 1, 'the timeline is a named region');

  await page.focus('[data-testid="fwd"]');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  await shot(page, 'full-1400');
  await page.context().close();
}
