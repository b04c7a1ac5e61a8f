// A frame of play lays out only what it changes. Everything that follows
// the step at every frame (the strips' inspector lines, the scrubber,
// the step box, the ra panels' figures, gauge and cause line) sits inside
// a relayout boundary (assets/style.css), so no frame of play lays out
// the whole document: where the ra panels' figures did, Layout took
// about 4.4 ms a frame of the 16 GiB link at 1920×1080 instead of 2.9.
// Checked from Chromium's own layout roots, after play's first frames,
// on the 16 GiB comparison at 1920×1080 (strips, controls and ra panels
// in sight) and on the default view at 1400×900.
//
// Nor does a frame of play layerize the whole page again
// (`PaintArtifactCompositor::Update`), which Chromium does when a paint
// chunk's bounds change. On the default view the step's marks on the
// scrubber are drawn on canvases (web/src/hooks/use_step_canvas.rs): a
// moving SVG line or native range thumb made it layerize the page on
// every frame, about 0.8 ms of it. On the 16 GiB comparison at 1920×1080
// the ra panels' figures, gauges and cause lines change at every frame;
// assets/style.css keeps their chunks' bounds (the panels' note there),
// and 4 of 60 frames do it, against 45 before; at most a quarter may.
import { BIG, onMainThread, traced } from '../lib/trace.mjs';

/// Frames left out at the start of play: its button's label changes, and
/// the first step lays out the page.
const SKIP = 5;
/// Frames of play checked.
const FRAMES = 60;

/// Plays from the first access for `SKIP` + `FRAMES` frames, traced with
/// `categories`: the layouts of the last `FRAMES` and the layout roots
/// each names, and their layerize steps and full layerizations. (With the
/// `blink` category, which has the latter, Chromium leaves the layout
/// roots out of its Layout events.)
async function layoutsOfPlay(page, categories) {
  const { result, events } = await traced(page, async ([skip, frames]) => {
    const r = document.querySelector('[data-testid="scrubber"]');
    r.value = '0';
    r.dispatchEvent(new Event('input', { bubbles: true }));
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: ' ', bubbles: true }));
    await new Promise((res) => {
      let n = 0;
      const tick = () => {
        n += 1;
        if (n === skip) console.timeStamp('checked');
        if (n < skip + frames) requestAnimationFrame(tick); else res();
      };
      requestAnimationFrame(tick);
    });
    console.timeStamp('end');
    const step = Number(r.value);
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: ' ', bubbles: true }));
    return step;
  }, categories, [SKIP, FRAMES]);
  const main = onMainThread(events);
  const at = (m) => main.find((e) => e.name === 'TimeStamp' && e.args.data && e.args.data.message === m);
  const [from, to] = [at('checked'), at('end')];
  const layouts = from && to
    ? main.filter((e) => e.name === 'Layout' && e.ph === 'X' && e.cat.includes('devtools.timeline') && e.ts >= from.ts && e.ts < to.ts)
    : [];
  const inWindow = (e) => from && to && e.ts >= from.ts && e.ts < to.ts;
  return {
    step: result,
    roots: layouts.map((e) => (e.args.endData && e.args.endData.layoutRoots) || null),
    layerizes: main.filter((e) => e.name === 'Layerize' && e.ph === 'X' && inWindow(e)).length,
    fullUpdates: main.filter((e) => e.name === 'PaintArtifactCompositor::Update' && inWindow(e)).length,
  };
}

export async function run({ newPage, expect, log }) {
  // The most full layerizations each view's play may make in FRAMES.
  for (const [name, query, viewport, inSight, maxFull] of [
    ['the 16 GiB comparison at 1920×1080', BIG, { width: 1920, height: 1080 }, '[data-testid="counters-b"]', FRAMES / 4],
    ['the default view at 1400×900', '', { width: 1400, height: 900 }, '[data-testid="inspector"]', 2],
  ]) {
    const page = await newPage(query, viewport);
    expect(await page.evaluate((sel) => {
      const e = document.querySelector(sel);
      return e !== null && e.getBoundingClientRect().bottom <= innerHeight;
    }, inSight), `${name}: ${inSight} is in sight, so that play changes it`);
    const { step, roots } = await layoutsOfPlay(page, 'devtools.timeline,disabled-by-default-devtools.timeline');
    expect(step > 0, `${name}: play moved (step ${step})`);
    expect(roots.length >= 10, `${name}: the trace shows the frames' layouts (${roots.length})`);
    expect(roots.every((r) => r !== null), `${name}: every layout in the trace names its layout roots`);
    const whole = roots.filter((r) => r.some((root) => root.nodeName === '#document')).length;
    log(`${name}: ${roots.length} layouts in ${FRAMES} frames of play, ${whole} of the whole document`);
    expect(whole === 0, `${name}: no frame of play lays out the whole document (${whole} of ${roots.length} did)`);
    const { layerizes, fullUpdates } = await layoutsOfPlay(page, 'devtools.timeline,blink');
    log(`${name}: ${fullUpdates} full layerizations in ${layerizes} frames' layerize steps`);
    expect(layerizes >= 10, `${name}: the trace shows the frames' layerize steps (${layerizes})`);
    expect(fullUpdates <= maxFull, `${name}: play does not layerize the page again at every frame (${fullUpdates} of ${layerizes} did, at most ${maxFull} may)`);
    await page.context().close();
  }
}
