// End-to-end test of the per-CPU timeline: in live mode and for a recorded window of a
// sweep's run. Zoom (button, key, Ctrl+wheel), pan (button, key, drag), a wakeup clicked
// opens its decision trace, which must be `schedsim trace`'s text for that wakeup.
// Screenshots at 1366x768, 1920x1080 and 390x844 go to SCHEDSIM_OUT.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { BASE, CLI, cliParity, OUT, problems, newPage } from "./helpers.js";

let page;

before(async () => {
  page = await newPage("timeline");
});

const view = async (sel) => {
  const [a, b] = await page.$eval(sel, (el) => [Number(el.dataset.viewStart), Number(el.dataset.viewEnd)]);
  return { start: a, end: b, span: b - a };
};

// What `schedsim trace` prints for one wakeup (after its header line).
function cliTrace(args) {
  const out = execFileSync(CLI, ["trace", ...args, "--count", "1"], { encoding: "utf8" });
  return out.slice(out.indexOf("wakeup #")).trim();
}

// Clicks an arrow where a user would: on its curve (the middle of its path).
async function clickArrow(wake) {
  const p = await wake.locator("path.tl-hit").evaluate((el) => {
    const pt = el.getPointAtLength(el.getTotalLength() / 2);
    const m = el.getScreenCTM();
    return { x: pt.x * m.a + pt.y * m.c + m.e, y: pt.x * m.b + pt.y * m.d + m.f };
  });
  if (process.env.TL_DEBUG) console.log("# at", p, await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.outerHTML.slice(0, 200), p));
  await page.mouse.click(p.x, p.y);
}

async function shots(name, sel) {
  for (const [w, h] of [[1366, 768], [1920, 1080], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(150); // the timeline measures its width after the resize
    await page.locator(sel).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, `${name}-${w}x${h}.png`) });
    const over = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(over <= 0, `${name} at ${w}x${h}: the page is ${over} px wider than the screen`);
    const tl = await page.$eval(sel, (el) => el.getBoundingClientRect().right);
    assert.ok(tl <= w + 0.5, `${name} at ${w}x${h}: the timeline overflows (${tl} px)`);
  }
  await page.setViewportSize({ width: 1366, height: 768 });
}

test("live mode: the timeline has a lane per CPU, zooms, pans and opens a wakeup's trace", async () => {
  await page.goto(BASE);
  await page.waitForSelector("#preset");
  await page.selectOption("#preset", "demo");
  await page.click("#tab-live");
  await page.waitForSelector("#live-timeline .tl-lanes");
  for (let i = 0; i < 40; i++) await page.keyboard.press("Space");
  await page.waitForFunction(() => /^40 wakeups/.test(document.querySelector("#live-status").textContent));
  const sel = "#live-timeline";
  assert.equal((await page.$$(`${sel} .tl-lane`)).length, 8, "one lane per CPU of the teaching machine");
  assert.ok((await page.$$(`${sel} rect.tl-run`)).length > 0, "tasks ran");
  assert.ok((await page.$$(`${sel} rect.tl-idle`)).length > 0, "CPUs idled");
  const legend = await page.textContent(`${sel} .tl-legend`);
  assert.match(legend, /idle POLL|idle C1/, "C-states in the legend");
  // The view follows the present: its end is the simulated time now.
  const now = Number(/([\d.]+) ms simulated/.exec(await page.textContent("#live-status"))[1]);
  let v = await view(sel);
  assert.ok(Math.abs(v.end / 1e6 - now) < 0.002, `view ends at ${v.end} ns, now is ${now} ms`);

  // Zoom: the button halves the span, "-" doubles it, Ctrl+wheel zooms at the pointer.
  await page.click(`${sel} .tl-zoom-in`);
  let z = await view(sel);
  assert.ok(Math.abs(z.span - v.span / 2) <= 1, `zoom in: ${v.span} -> ${z.span}`);
  await page.focus(`${sel} .tl-plot`);
  await page.keyboard.press("-");
  const z2 = await view(sel);
  assert.ok(z2.span > z.span, `"-" zooms out: ${z.span} -> ${z2.span}`);
  const box = await page.locator(`${sel} .tl-lanes`).boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + 20);
  await page.keyboard.down("Control");
  await page.mouse.wheel(0, -200);
  await page.keyboard.up("Control");
  await page.waitForFunction(([s, before]) => {
    const d = document.querySelector(s).dataset;
    return Number(d.viewEnd) - Number(d.viewStart) < before;
  }, [sel, z2.span], { timeout: 5000 });
  const z3 = await view(sel);
  assert.ok(z3.span < z2.span, `Ctrl+wheel zooms in: ${z2.span} -> ${z3.span}`);

  // Pan: the button moves a quarter back and stops following; a drag to the right
  // moves earlier still; End follows again.
  await page.click(`${sel} .tl-left`);
  const p1 = await view(sel);
  assert.ok(p1.end < z3.end && p1.span === z3.span, `pan left: ${JSON.stringify([z3, p1])}`);
  assert.equal(await page.getAttribute(`${sel} .tl-latest`, "aria-pressed"), "false");
  await page.mouse.move(box.x + box.width * 0.5, box.y + 30);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.5 + 80, box.y + 30, { steps: 5 });
  await page.mouse.up();
  const p2 = await view(sel);
  assert.ok(p2.start < p1.start, `drag right shows earlier: ${p1.start} -> ${p2.start}`);
  await page.focus(`${sel} .tl-plot`);
  await page.keyboard.press("ArrowRight");
  const p3 = await view(sel);
  assert.ok(p3.start > p2.start, "→ pans later");
  await page.keyboard.press("End");
  assert.equal(await page.getAttribute(`${sel} .tl-latest`, "aria-pressed"), "true");
  // Fit shows everything kept, then zoom in to a few wakeups.
  await page.click(`${sel} .tl-fit`);
  await page.click(`${sel} .tl-zoom-in`);
  await page.click(`${sel} .tl-latest`);

  // A wakeup arrow, clicked, opens its trace: the text `schedsim trace` prints for it
  // (live mode runs without warm-up, so that is --warmup-ms 0).
  const wake = page.locator(`${sel} g.tl-wake:not(.pending)`).last();
  await wake.waitFor();
  const index = await wake.getAttribute("data-index");
  await wake.scrollIntoViewIfNeeded();
  await clickArrow(wake);
  await page.waitForSelector(`${sel} pre.tl-trace-text`);
  const text = (await page.textContent(`${sel} pre.tl-trace-text`)).trim();
  assert.match(text, new RegExp(`^wakeup #${index} at `));
  assert.match(text, /=> CPU \d+/);
  if (cliParity("timeline.test.js: the page against the CLI")) assert.equal(text, cliTrace(["demo", "--kernel-index", "0", "--clients", "1", "--warmup-ms", "0", "--from", index]));
  // Keyboard: the next wakeup's trace.
  await page.click(`${sel} .tl-prev`);
  assert.match(await page.textContent(`${sel} pre.tl-trace-text`), new RegExp(`^wakeup #${Number(index) - 1} `));
  // Tab reaches an arrow; Enter opens it.
  await page.locator(`${sel} g.tl-wake`).first().focus();
  await page.keyboard.press("Enter");
  const first = await page.locator(`${sel} g.tl-wake`).first().getAttribute("data-index");
  assert.match(await page.textContent(`${sel} pre.tl-trace-text`), new RegExp(`^wakeup #${first} `));

  // Play a while: the timeline keeps up.
  await page.selectOption("#live-speed", "5");
  await page.keyboard.press("p");
  await page.waitForFunction(() => Number(document.querySelector("#live-status").textContent.split(" ")[0]) > 2000, null, { timeout: 20_000 });
  await page.keyboard.press("p");
  await page.waitForSelector(".live-mode:not([data-busy])");
  const end = Number(/([\d.]+) ms simulated/.exec(await page.textContent("#live-status"))[1]);
  v = await view(sel);
  assert.ok(Math.abs(v.end / 1e6 - end) < 0.002, "following after play");
  await clickArrow(page.locator(`${sel} g.tl-wake:not(.pending)`).last());
  await shots("20-live-timeline", sel);
  await page.selectOption("#theme", "dark");
  await shots("21-live-timeline-dark", sel);
  await page.selectOption("#theme", "light");
});

test("a recorded window of a sweep's run: the timeline shows it and traces match `schedsim trace`", async () => {
  await page.click("#tab-sweep");
  await page.selectOption("#preset", "demo");
  await page.fill("#wasted-threshold", "100"); // µs: the demo breaks the invariant at this threshold
  await page.click("#run");
  await page.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]"), null, { timeout: 240_000, polling: 200 });
  const sel = "#run-timeline";
  await page.locator("#record-timeline").scrollIntoViewIfNeeded();
  await page.selectOption("#record-timeline .tl-clients", "2");
  await page.fill("#record-timeline .tl-from", "10");
  await page.fill("#record-timeline .tl-to", "12");
  await page.click("#record-timeline .tl-record");
  await page.waitForSelector(`${sel} .tl-lanes`, { timeout: 60_000 });
  assert.equal((await page.$$(`${sel} .tl-lane`)).length, 8);
  let v = await view(sel);
  assert.deepEqual([v.start, v.end], [10_000_000, 12_000_000], "the whole window is shown");
  // Zoom in twice and pan: within the window.
  await page.click(`${sel} .tl-zoom-in`);
  await page.click(`${sel} .tl-zoom-in`);
  await page.click(`${sel} .tl-right`);
  v = await view(sel);
  assert.ok(v.span === 500_000 && v.start >= 10_000_000 && v.end <= 12_000_000, JSON.stringify(v));
  const wake = page.locator(`${sel} g.tl-wake`).nth(2);
  const index = await wake.getAttribute("data-index");
  await wake.scrollIntoViewIfNeeded();
  await clickArrow(wake);
  await page.waitForSelector(`${sel} pre.tl-trace-text`);
  const text = (await page.textContent(`${sel} pre.tl-trace-text`)).trim();
  assert.match(text, new RegExp(`^wakeup #${index} at `));
  if (cliParity("timeline.test.js: the page against the CLI")) assert.equal(text, cliTrace(["demo", "--kernel-index", "0", "--clients", "2", "--from", index]));
  await shots("22-run-timeline", sel);
  // A window around a wasted-core moment the sweep found (iteration 0): its mark is
  // drawn on the idle CPU's lane.
  const moments = await page.$$eval("#wasted details.moments-of", (ds) => ds.map((d) => ({
    summary: d.querySelector("summary").textContent,
    items: [...d.querySelectorAll("ol.moments li")].map((l) => l.textContent),
  })));
  const found = moments.flatMap((d) => d.items.map((t) => ({ d, m: /at ([\d.]+) ms \(iteration 0\): CPU (\d+) idle/.exec(t) })))
    .find((x) => x.m);
  assert.ok(found, "the demo at 100 µs has a wasted-core moment in iteration 0");
  const [, atMs, idleCpu] = found.m;
  const [, kname, clients] = /^(.*) at (\d+) /.exec(found.d.summary);
  const kernels = await page.$$eval("#record-timeline .tl-kernel option", (os) => os.map((o) => o.textContent));
  await page.selectOption("#record-timeline .tl-kernel", String(kernels.indexOf(kname)));
  await page.selectOption("#record-timeline .tl-clients", clients);
  await page.fill("#record-timeline .tl-from", String(Number(atMs) - 0.5));
  await page.fill("#record-timeline .tl-to", String(Number(atMs) + 0.5));
  await page.click("#record-timeline .tl-record");
  await page.waitForSelector(`${sel} .tl-wasted[data-idle-cpu="${idleCpu}"]`, { timeout: 60_000 });
  await page.locator(`${sel} .tl-wasted`).first().scrollIntoViewIfNeeded();
  await page.locator(sel).screenshot({ path: path.join(OUT, "23-run-timeline-wasted.png") });
  await page.fill("#record-timeline .tl-from", "10");
  await page.fill("#record-timeline .tl-to", "200");
  await page.click("#record-timeline .tl-record");
  assert.match(await page.textContent("#record-timeline .tl-error"), /at most 50 ms|lasts 100 ms/);
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
