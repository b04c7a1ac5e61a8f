// Stories for talks. Seed 000's own story, walked with PageDown and
// PageUp in presenter mode: each stop's caption, step and pages are those
// `folioscope export --story` prints, "stop N of M" is shown, and the
// link the app writes carries the story and the stop, so that reloading
// it opens at that stop. A speaker's own story, made with "Add stop",
// survives a reload, and "Copy as text" lists the stops.
import path from 'node:path';

/** The stops `folioscope export` lists: [{ step, caption }]. */
function cliStops(textOut) {
  const lines = textOut.split('\n');
  const at = lines.indexOf('story:');
  const stops = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === '') break;
    const m = /^ {2}(\d+)\. step (\d+)(?:, pages (\d+-\d+))?: (.*)$/.exec(line);
    if (m) stops.push({ n: Number(m[1]), step: Number(m[2]), pages: m[3]?.replace('-', '..'), caption: m[4] });
    else stops[stops.length - 1].caption += ' ' + line.trim();
  }
  return stops;
}

const caption = (page) => page.$eval('[data-testid="story-caption"]', (c) => c.innerText.replace(/\s*\n\s*/g, ' ').trim());
const step = (page) => page.inputValue('[data-testid="jump"]');
const pagesInView = async (page) => (await page.textContent('[data-testid="zoom-strip"]')).replace(/^pages (\S+) of .*$/, '$1');

/** The page's address once the app has written it for the view. */
async function writtenLink(page, want) {
  await page.waitForFunction((w) => w.every((p) => location.search.includes(p)), want, { timeout: 5000 });
  return page.url();
}

export async function run({ newPage, expect, expectEq, text, cliText, shot, outDir }) {
  const exported = cliText(['export', '--preset', 'seed000-rev-huge', '--story']);
  const stops = cliStops(exported);
  expect(stops.length >= 4, `the CLI lists seed 000's stops: ${JSON.stringify(stops)}`);
  const n = stops.length;

  const page = await newPage('?v=1&preset=seed000-rev-huge&story=seed&present=1', { width: 1400, height: 900 });
  await page.waitForFunction(() => document.querySelector('[data-testid="story-count"]'), null, { timeout: 20000 });
  expectEq(await text(page, 'story-count'), `${n} stops · PageDown: the first`, 'the placed story, before its first stop');
  let third = null;
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('PageDown');
    expectEq(await text(page, 'story-count'), `stop ${i + 1} of ${n}`, `PageDown to stop ${i + 1}`);
    expectEq(await caption(page), stops[i].caption, `stop ${i + 1}'s caption`);
    expectEq(await step(page), String(stops[i].step), `stop ${i + 1}'s step`);
    expectEq(await pagesInView(page), stops[i].pages ?? '0..524287', `stop ${i + 1}'s pages in view`);
    const link = await writtenLink(page, ['story=seed', `stop=${i + 1}`]);
    if (i === 2) {
      third = link;
      await page.screenshot({ path: path.join(outDir, 'story-stop-presenter.png') });
    }
  }
  await page.keyboard.press('PageDown');
  expectEq(await text(page, 'story-count'), `stop ${n} of ${n}`, 'PageDown at the last stop stays there');
  await page.keyboard.press('PageUp');
  expectEq(await text(page, 'story-count'), `stop ${n - 1} of ${n}`, 'PageUp goes back a stop');
  expectEq(await step(page), String(stops[n - 2].step), 'to its step');
  await page.context().close();

  // The link written at stop 3 opens at stop 3.
  const again = await newPage(third.slice(third.indexOf('?')), { width: 1400, height: 900 });
  await again.waitForSelector('[data-testid="story-caption"]', { timeout: 20000 });
  expectEq(await text(again, 'story-count'), `stop 3 of ${n}`, `the link ${third} opens at stop 3`);
  expectEq(await caption(again), stops[2].caption, 'with its caption');
  expectEq(await step(again), String(stops[2].step), 'and its step');
  expectEq(await pagesInView(again), stops[2].pages, 'and its pages');
  await again.context().close();

  // In the full view: "Play this preset's story", then the stop on
  // screen for the README; "Copy as text" lists the stops as the CLI does.
  const full = await newPage('?v=1&preset=seed000-rev-huge', { width: 1400, height: 900 });
  await full.click('[data-testid="story-play-seed"]');
  await full.waitForSelector('[data-testid="story-caption"]', { timeout: 20000 });
  expectEq(await text(full, 'story-count'), `stop 1 of ${n}`, 'the story starts at its first stop');
  await full.keyboard.press('PageDown');
  await full.keyboard.press('PageDown');
  expectEq(await step(full), String(stops[2].step), 'stop 3, in the full view');
  await full.screenshot({ path: path.join(outDir, 'story-stop.png') });
  await full.click('[data-testid="copy-text"]');
  const mail = await full.inputValue('[data-testid="shared-text"]');
  const listed = exported.slice(exported.indexOf('story:'), exported.indexOf('\n\n', exported.indexOf('story:')));
  expect(mail.includes(listed), `the mail text lists the stops as the CLI does:\n${mail}\n---\n${listed}`);
  await full.context().close();

  // A speaker's own story: two stops made with "Add stop", the second
  // zoomed in and without the event log; it travels in the link.
  const own = await newPage('?v=1&preset=seed000-fwd-seq&step=300', { width: 1400, height: 900 });
  const addStop = async (text) => {
    await own.click('[data-testid="story-add"]');
    await own.fill('[data-testid="story-caption-input"]', text);
    await own.click('[data-testid="story-save"]');
  };
  // Esc closes the caption form without a stop.
  await own.click('[data-testid="story-add"]');
  await own.press('[data-testid="story-caption-input"]', 'Escape');
  expectEq(await own.$$eval('[data-testid="story-caption-input"]', (e) => e.length), 0, 'Esc closes the form');
  await addStop('Readahead at work:\nthe window grows');
  expectEq(await text(own, 'story-count'), 'stop 1 of 1', 'the first stop');
  expectEq(await caption(own), 'Readahead at work: the window grows', 'its two lines');
  await own.fill('[data-testid="jump"]', '2000');
  await own.press('[data-testid="jump"]', 'Enter');
  await own.click('[data-testid="toggle-log"]');
  // The toggle scrolled the page: the strip back in sight, then a drag
  // over its first quarter.
  await own.$eval('[data-testid="strip"]', (c) => c.scrollIntoView({ block: 'center' }));
  const box = await (await own.$('[data-testid="strip"]')).boundingBox();
  const y = box.y + box.height / 2;
  await own.mouse.move(box.x + 5, y);
  await own.mouse.down();
  await own.mouse.move(box.x + box.width / 4, y, { steps: 5 });
  await own.mouse.up();
  const pages = await text(own, 'zoom-strip');
  const [, first, last, of] = /^pages (\d+)\.\.(\d+) of (\d+)$/.exec(pages).map(Number);
  expect(first > 0 || last < of - 1, `zoomed in: ${pages}`);
  await addStop('Zoomed in, no log');
  expectEq(await text(own, 'story-count'), 'stop 2 of 2', 'the second stop');
  const link = await writtenLink(own, ['story1=', 'story2=', 'stop=2']);
  await own.reload();
  await own.waitForSelector('html[data-warm="1"]', { state: 'attached', timeout: 15000 });
  expectEq(await text(own, 'story-count'), 'stop 2 of 2', `the own story survives a reload (${link})`);
  expectEq(await caption(own), 'Zoomed in, no log', 'with its caption');
  expectEq(await step(own), '2000', 'and its step');
  expectEq(await text(own, 'zoom-strip'), pages, 'and its pages');
  expect((await own.$('[data-testid="log"]')) === null, 'and its panels');
  await own.keyboard.press('PageUp');
  expectEq(await text(own, 'story-count'), 'stop 1 of 2', 'PageUp to the first stop');
  expectEq(await step(own), '300', 'at its step');
  expect((await own.$('[data-testid="log"]')) !== null, 'with the log again');
  await own.click('[data-testid="copy-text"]');
  const ownMail = await own.inputValue('[data-testid="shared-text"]');
  expect(ownMail.includes('  1. step 300: Readahead at work: the window grows'), ownMail);
  await shot(own, 'story-own');
  await own.context().close();
}
