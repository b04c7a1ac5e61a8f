// A recording of a real program opened in the app: dropped on the page or
// chosen with the "Open recording…" button by keyboard. The real kernel's
// lane at a middle step holds the page cache the recorded events built,
// and it equals the model's strip there (read through the lane's data
// attributes, and the model's side checked against `folioscope run`); the
// real events are on the timeline; with another kernel on side A the first
// divergence is the one `folioscope check` names, one click away; the
// what-if table is the one `folioscope compare --recording` prints; a small
// recording travels in the link and a large one is said not to; a damaged
// recording shows a banner naming the line or field and keeps the last
// good state.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const FIXTURES = 'cli/tests/fixtures/replay';

/// Drops `bytes` on the page as a file named `name`.
async function drop(page, bytes, name) {
  await page.evaluate(([b64, name]) => {
    const bin = atob(b64);
    const u8 = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
    const dt = new DataTransfer();
    dt.items.add(new File([u8], name));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [Buffer.from(bytes).toString('base64'), name]);
}

/// The CLI's output, whatever its exit status (check exits 1 on a divergence).
function cliOut(args) {
  try {
    return execFileSync(process.env.FOLIOSCOPE_CLI, args, { encoding: 'utf8' });
  } catch (e) {
    if (e.stdout) return e.stdout;
    throw e;
  }
}

/// Chooses `file` with the button `id`, reached by keyboard: focus, then
/// Enter. The page's file choosers are listened for from the start, so
/// that one opened at once is not missed.
async function choose(page, id, file, expectEq) {
  if (!page.choosers) {
    page.choosers = [];
    page.on('filechooser', (fc) => page.choosers.push(fc));
  }
  await page.focus(`[data-testid="${id}"]`);
  expectEq(await page.evaluate(() => document.activeElement.dataset.testid), id, 'the button has the focus');
  const n = page.choosers.length;
  await page.keyboard.press('Enter');
  for (let i = 0; i < 100 && page.choosers.length === n; i++) await page.waitForTimeout(100);
  expectEq(page.choosers.length, n + 1, `Enter on ${id} opens a file chooser`);
  await page.choosers[n].setFiles(file);
}

async function waitTitle(page, start) {
  await page.waitForFunction((s) => {
    const t = document.querySelector('[data-testid="recording-title"]');
    return t && t.textContent.startsWith(s);
  }, start, { timeout: 20000 });
}

async function waitLaneAt(page, step) {
  await page.waitForFunction((s) => {
    const c = document.querySelector('[data-testid="real-strip"]');
    return c && c.dataset.step === String(s) && document.documentElement.dataset.ready === '1';
  }, step, { timeout: 20000 });
}

async function seek(page, step) {
  await page.evaluate((s) => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = String(s);
    r.dispatchEvent(new Event('input', { bubbles: true }));
  }, step);
}

/// Per pixel column, whether the real lane's folio colour is the model
/// strip's, leaving out columns where the model draws a PG_readahead tick
/// or the cursor over its folios.
async function sameColumns(page) {
  return page.evaluate(() => {
    const row = (id, y) => {
      const c = document.querySelector(`[data-testid="${id}"]`);
      return { w: c.width, d: c.getContext('2d').getImageData(0, y, c.width, 1).data };
    };
    const model = row('strip', 40);
    const real = row('real-strip', 20);
    if (model.w !== real.w) return { width: [model.w, real.w] };
    let same = 0, compared = 0;
    for (let x = 0; x < model.w; x++) {
      const m = model.d.slice(4 * x, 4 * x + 3).join(',');
      if (m === '213,94,0' || m === '0,0,0') continue;
      compared++;
      if (m === real.d.slice(4 * x, 4 * x + 3).join(',')) same++;
    }
    return { same, compared };
  });
}

export async function run({ newPage, expect, expectEq, text, shot, repo, cliText }) {
  const fixture = (name) => path.join(repo, FIXTURES, name);
  const page = await newPage();
  page.choosers = [];
  page.on('filechooser', (fc) => page.choosers.push(fc));

  // Drop tac's recording, then sqlite's: each real lane equals the model
  // at a middle step, and the model's side is `folioscope run`'s.
  for (const [name, title] of [['tac-64m.rec.gz', 'tac '], ['sqlite-60m.rec.gz', 'sqlite3 ']]) {
    await drop(page, fs.readFileSync(fixture(name)), name);
    await waitTitle(page, title);
    const report = JSON.parse(cliText(['run', '--recording', fixture(name), '--json']));
    const mid = Math.floor(report.steps / 2);
    await seek(page, mid);
    await waitLaneAt(page, mid);
    const lane = await page.$eval('[data-testid="real-strip"]', (c) => ({ ...c.dataset }));
    const atMid = JSON.parse(cliText(['run', '--recording', fixture(name), '--step', String(mid), '--json']));
    const cliRuns = atMid.folios.map((r) => r.join(':')).join(',');
    expect(lane.real.length > 0, `${name}: the kernel had cached pages by step ${mid}`);
    expectEq(lane.model, cliRuns, `${name}: the model's folios at step ${mid} are folioscope run's`);
    expectEq(lane.real, lane.model, `${name}: the real lane equals the model at step ${mid}`);
    expectEq(lane.differing, '0', `${name}: no page differs at step ${mid}`);
    const cols = await sameColumns(page);
    expect(cols.compared > 100 && cols.same === cols.compared,
      `${name}: the lane's colours are the model strip's, column by column: ${JSON.stringify(cols)}`);
    await page.waitForSelector('[data-testid="real-check"]', { timeout: 20000 });
    expectEq(await page.getAttribute('[data-testid="real-check"]', 'data-identical'), 'true',
      `${name}: the model is identical to the kernel, event by event`);
  }
  const marks = await page.$$eval('[data-testid="real-marks"] path', (ps) => ps.map((p) => p.getAttribute('d').length));
  expect(marks.length === 2 && marks.every((n) => n > 10), `the real events are on the timeline: ${marks}`);
  // "folio add ▶" steps to the next access after which the kernel added one.
  const before = Number(await page.inputValue('[data-testid="jump"]'));
  await page.click('[data-testid="next-real-add"]');
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid="jump"]').value) > b, before);
  await shot(page, 'recording-1400');

  // The what-if table is folioscope compare --recording's, to the letter.
  await page.click('[data-testid="whatif-run"]');
  await page.waitForSelector('[data-testid="whatif-text"]', { timeout: 30000 });
  const table = await page.textContent('[data-testid="whatif-text"]');
  expectEq(table, cliText(['compare', '--recording', fixture('sqlite-60m.rec.gz')]), 'the what-if table');

  // A damaged recording: a banner names the line or field, and the view
  // keeps the recording it had, at the same step.
  const step = await page.inputValue('[data-testid="jump"]');
  const gz = fs.readFileSync(fixture('tac-64m.rec.gz'));
  const plain = zlib.gunzipSync(gz).toString('utf8');
  const lines = plain.split('\n');
  expect(lines[6].startsWith('r 0 '), `line 7 is a read: ${lines[6]}`);
  const bad = [...lines.slice(0, 6), lines[6].replace(/^r 0 /, 'r 0 x'), ...lines.slice(7)].join('\n');
  const damaged = [
    [gz.subarray(0, gz.length >> 1), 'cut.rec.gz', /^recording gzip: the file is truncated or damaged/],
    [Buffer.from(bad), 'bad.rec', /^recording: line 7: r: delta: 'x67108864' is not a signed number/],
    [Buffer.from(plain.replace('release=6.18.44', 'release=5.15.0')), 'old.rec', /^recording: release: the recording was made on Linux 5\.15\.0/],
    [Buffer.from(lines.slice(0, 5).join('\n') + '\ntotal 0\n'), 'none.rec', /^recording: file: the program accessed none/],
  ];
  for (const [bytes, name, want] of damaged) {
    await drop(page, bytes, name);
    await page.waitForSelector('[data-testid="banner"]', { timeout: 10000 });
    const banner = await text(page, 'banner');
    expect(want.test(banner), `${name}: the banner names what is wrong: "${banner}"`);
    if (name === 'bad.rec') await shot(page, 'recording-damaged');
    expect((await text(page, 'recording-title')).startsWith('sqlite3 '), `${name}: the recording stays`);
    expectEq(await page.inputValue('[data-testid="jump"]'), step, `${name}: the step stays`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="banner"]', { state: 'detached' });
  }

  // The loader under MADV_HUGEPAGE, opened with the button by keyboard,
  // replayed on v7.4-rc2+desc-ra: the first divergence is folioscope
  // check's, and "jump there" goes to it.
  await choose(page, 'open-recording', fixture('loader-hugepage-512m.rec.gz'), expectEq);
  await waitTitle(page, './loader ');
  await page.selectOption('[data-testid="p-kernel"]', 'v7.4-rc2+desc-ra');
  await page.waitForSelector('[data-testid="real-check"][data-identical="false"]', { timeout: 30000 });
  const parted = await page.getAttribute('[data-testid="real-check"]', 'data-step');
  const check = JSON.parse(cliOut(['check', '--recording', fixture('loader-hugepage-512m.rec.gz'), '--kernel', 'v7.4-rc2+desc-ra', '--json']));
  expectEq(parted, String(check.parted_after), 'the first divergence is folioscope check\'s');
  expect((await page.$('[data-testid="real-marks"] .real-divergence')) !== null, 'the divergence is marked on the timeline');
  await page.click('[data-testid="jump-divergence"]');
  await waitLaneAt(page, Number(parted));
  await shot(page, 'recording-divergence');

  // A small recording travels in the link: the copied link opens the same
  // view elsewhere.
  await page.click('[data-testid="copy-link"]');
  const link = await page.inputValue('[data-testid="shared-text"]');
  expect(link.includes('&rec=') && link.includes('kernel=v7.4-rc2+desc-ra'), `the link carries the recording and the kernel: ${link.slice(0, 160)}`);
  expect((await page.$('[data-testid="shared-note"]')) === null, 'no note when the recording is in the link');
  const query = link.slice(link.indexOf('?'));
  const other = await newPage(query, { width: 1024, height: 768 });
  await waitTitle(other, './loader ');
  await waitLaneAt(other, Number(parted));
  expectEq(await text(other, 'kernel'), 'v7.4-rc2+desc-ra', 'the link\'s kernel');
  await shot(other, 'recording-1024');
  await other.context().close();

  // A recording too large for a link: the share panel says so in a line.
  const big = [lines[0], lines[1], 'arg big', lines.find((l) => l.startsWith('file 0')), 'o 0'];
  let end = 0;
  let seed = 7;
  for (let i = 0; i < 3000; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const at = ((seed >>> 12) % 16384) * 4096;
    big.push(`r 0 ${at - end} 4096`);
    end = at + 4096;
  }
  big.push(`total ${3001}`);
  await drop(page, Buffer.from(big.join('\n') + '\n'), 'big.rec');
  await waitTitle(page, 'big ');
  await page.click('[data-testid="copy-link"]');
  const note = await text(page, 'shared-note');
  expect(/^The recording \([\d.]+ KB gzipped, over 4 KB\) is not in the link/.test(note), note);
  expect(!(await page.inputValue('[data-testid="shared-text"]')).includes('&rec='), 'no recording in that link');

  // The probe report's drop has its button too, reached by keyboard.
  await choose(page, 'open-probe', path.join(repo, 'cli/tests/fixtures/2g-stride-64-normal.json'), expectEq);
  await page.waitForSelector('[data-testid="probe-overlay"]', { timeout: 20000 });
  expect((await page.$('[data-testid="real-lane"]')) === null, 'the probe report replaces the recording');
  await page.context().close();
}
