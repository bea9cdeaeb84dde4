// End-to-end tests of the page in a room (issue 31, items 1 to 6), at the viewports
// named there: a lecturer's projector (1920x1080), a kernel developer's laptop
// (1366x768) and a student's phone (390x844, device pixel ratio 3).
//
//   1. presenter mode keeps the chart in view, one chart per row at full width, drawn
//      at device pixels, the form folded;
//   2. no chart text overlaps at presenter size (bounding boxes of the SVG export,
//      which is the canvas' drawing at the same size);
//   3. the lecturer's link (even an old one that says "presenter": true) opens on the
//      phone without presenter mode and without horizontal scroll;
//   4. stepping on the phone keeps Step and the latest decision on screen together;
//   5. sweep charts on the phone are drawn for their width, text >= 11 CSS px, legends
//      whole;
//   6. the keyboard: a skip link (Run in <= 10 Tab presses), Ctrl+Enter listed in "?",
//      the machine editor one Tab stop, shortcuts yield to a focused button.
//
// Screenshots go to SCHEDSIM_OUT as 31-*.png.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import zlib from "node:zlib";
import { OUT, problems, newPage, openPage, chartTexts, textProblems } from "./helpers.js";

const shot = (p, name) => {
  const { width, height } = p.viewportSize();
  return p.screenshot({ path: path.join(OUT, `31-${name}-${width}x${height}.png`) });
};
const encode = (shared) => "#v1." + zlib.deflateSync(Buffer.from(JSON.stringify(shared)), { level: 9 }).toString("base64url");
const decode = (hash) => JSON.parse(zlib.inflateSync(Buffer.from(hash.replace(/^#?v1\./, ""), "base64url")).toString());
const REPORT_CHARTS = ["throughput", "migrations", "cputime", "latency"];

async function sweepDone(p, timeout = 400_000) {
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]"), null, { timeout, polling: 200 });
  assert.equal(await p.$("#sweep-error"), null, "the sweep ran");
  // The charts redraw for their width after layout settles.
  await p.waitForTimeout(500);
}

// Each report chart's canvas: its width on the page and its pixels (CSS px, device px).
const canvases = (p) =>
  p.$$eval("section.results figure.chart canvas", (cs) =>
    cs.map((c) => ({ id: c.closest("figure").dataset.chart, css: c.getBoundingClientRect().width, px: c.width, dpr: devicePixelRatio, left: c.getBoundingClientRect().left })));

function drawnAtDevicePixels(list) {
  for (const c of list) assert.ok(Math.abs(c.px - c.css * c.dpr) <= 2, `${c.id}: ${c.px} canvas px for ${c.css} CSS px at ${c.dpr}x`);
}

let lecturer; // the 1920x1080 page, presenting seed001's results
let lecturerLink; // its address bar

before(async () => {
  lecturer = await newPage("lecturer", { viewport: { width: 1920, height: 1080 } });
  await openPage(lecturer);
});

test("1, 2: presenter mode at 1920x1080 keeps the migrations chart in view, one chart per row, sharp, no overlapping text", async () => {
  const p = lecturer;
  await p.click("#tab-classroom");
  await p.click('button[aria-label="Run seed001"]');
  await sweepDone(p);
  lecturerLink = await p.evaluate(() => location.href);
  // Scrolled to the migrations chart, the pointer on it, as a lecturer would be.
  await p.evaluate(() => scrollBy(0, document.querySelector('figure[data-chart="migrations"]').getBoundingClientRect().top - 270));
  await p.waitForTimeout(200);
  const was = await p.$eval('figure[data-chart="migrations"]', (f) => f.getBoundingClientRect().toJSON());
  await p.mouse.move(was.left + was.width / 2, was.top + was.height / 2);
  await shot(p, "1-before-presenter");
  await p.keyboard.press("f");
  await p.waitForFunction(() => document.documentElement.dataset.presenter === "on");
  await p.waitForTimeout(1500);
  // Screenshots come before the checks, so a run against an older page shows its "before".
  await shot(p, "1-presenter-kept");
  const now = await p.evaluate(() => ({
    chart: document.querySelector('figure[data-chart="migrations"]').getBoundingClientRect().toJSON(),
    header: document.querySelector("header.top").getBoundingClientRect().bottom,
    runbar: document.querySelector(".runbar").getBoundingClientRect().top,
    grid: document.querySelector("section.results .charts").getBoundingClientRect().width,
    h: innerHeight,
  }));
  console.log(`# presenter: migrations chart top ${was.top.toFixed(0)} -> ${now.chart.top.toFixed(0)} px, ${now.chart.width.toFixed(0)} x ${now.chart.height.toFixed(0)} (header ends ${now.header.toFixed(0)}, Run bar starts ${now.runbar.toFixed(0)})`);
  // The Run bar sticks to the bottom only when the page goes on under it.
  const bottom = now.runbar > now.h / 2 ? now.runbar : now.h;
  assert.ok(now.chart.top >= now.header - 1 && now.chart.bottom <= bottom + 1, `the chart stays whole in view: ${JSON.stringify(now)}`);
  // One chart per row at the full width, each drawn at device pixels.
  const cs = await canvases(p);
  assert.equal(cs.length, 4);
  for (const c of cs) {
    assert.ok(Math.abs(c.left - cs[0].left) < 2, `${c.id} is in the first column`);
    assert.ok(c.css >= now.grid * 0.95, `${c.id} is ${c.css} px of ${now.grid}`);
  }
  drawnAtDevicePixels(cs);
  // The form is folded under one line.
  assert.equal(await p.$eval("#inputs-fold", (d) => d.open), false);
  assert.equal(await p.isVisible("#seed"), false, "the form's fields are folded away");
  // 2: no chart text on another, none cut, none under 16 px.
  for (const id of REPORT_CHARTS) {
    const t = await chartTexts(p, id);
    assert.deepEqual(textProblems(t), [], `${id} at ${t.w}x${t.h}`);
    const small = t.texts.filter((x) => x.px < 16).map((x) => `"${x.t}" ${x.px}px`);
    assert.deepEqual(small, [], `${id}: presenter text under 16 px`);
  }
  assert.equal(JSON.stringify(decode(new URL(await p.evaluate(() => location.href)).hash)).includes("presenter"), false,
    "a link made while presenting does not carry it");
});

test("3: the lecturer's link, and an old one saying presenter, open on a phone without presenter mode or sideways scroll", async () => {
  assert.ok(lecturerLink, "test 1 ran");
  const made = decode(new URL(lecturerLink).hash);
  // A link from before: presenter mode in it, opened in live mode.
  const old = encode({ ...made, view: { ...made.view, tab: "live", presenter: true } });
  const phone = await newPage("phone", { viewport: { width: 390, height: 844 }, phone: true });
  await openPage(phone, old);
  await phone.waitForSelector(".live-mode .topo .cpu");
  await shot(phone, "3-phone-link");
  assert.equal(await phone.evaluate(() => document.documentElement.dataset.presenter), undefined, "not presenting");
  assert.equal(await phone.$("#link-notice"), null, "the old link opens without a complaint");
  const sw = await phone.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(sw <= 390, `the page is ${sw} px wide`);
  assert.equal(JSON.stringify(decode(await phone.evaluate(() => location.hash))).includes("presenter"), false, "the address bar is rewritten without it");
  assert.match(await phone.textContent("#live-what"), /^Experiment seed001: A .* as released · B /);
  const header = await phone.$eval("header.top", (h) => h.getBoundingClientRect().height);
  console.log(`# phone link: page ${sw} px wide, header ${header.toFixed(0)} px of 844`);
  assert.ok(header < 844 * 0.25, `the header is ${header} px`);

  // 4: stepping keeps Step and the latest decision on screen together, also scrolled
  // down to the machine drawing under the trace.
  const inView = () => phone.evaluate(() => {
    const r = (s) => document.querySelector(s).getBoundingClientRect();
    const ok = (b) => b.top >= 0 && b.bottom <= innerHeight;
    return { step: ok(r("#live-step")), latest: ok(r("#live-latest")), text: document.querySelector("#live-latest").textContent };
  });
  let last = (await inView()).text;
  for (const scroll of [0, 700, 1400]) {
    await phone.evaluate((y) => scrollTo(0, y), scroll);
    await phone.waitForTimeout(100);
    if (scroll === 700) await shot(phone, "4-phone-stepping");
    const before = await inView();
    assert.ok(before.step && before.latest, `scrolled to ${scroll}: Step ${before.step}, latest ${before.latest}`);
    await phone.tap("#live-step");
    await phone.waitForFunction((t) => document.querySelector("#live-latest").textContent !== t, last);
    const after = await inView();
    assert.ok(after.step && after.latest, `after a step at ${scroll}`);
    assert.match(after.text, /^latest: #\d+ .* → CPU \d+/);
    last = after.text;
  }
  // Issue 39 finding 8: the machine first under the controls, its decision trace after it.
  const order = await phone.evaluate(() => document.querySelector(".live-topo").getBoundingClientRect().top < document.querySelector("aside.trace").getBoundingClientRect().top);
  assert.ok(order, "the machine comes first on a phone, then its decision trace");
  await phone.context().close();
});

test("5: sweep charts on a phone are drawn for their width, text at 11 CSS px or more, legends whole", async () => {
  const made = decode(new URL(lecturerLink).hash);
  // The lecturer's sweep at one iteration, to keep the test short.
  const link = encode({ ...made, experiment: { ...made.experiment, iterations: 1 }, view: { ...made.view, tab: "sweep" } });
  const phone = await newPage("phone-sweep", { viewport: { width: 390, height: 844 }, phone: true });
  await openPage(phone, link);
  await sweepDone(phone);
  await phone.evaluate(() => document.querySelector('figure[data-chart="throughput"]').scrollIntoView());
  await shot(phone, "5-phone-throughput");
  await phone.evaluate(() => document.querySelector('figure[data-chart="migrations"]').scrollIntoView());
  await shot(phone, "5-phone-migrations");
  const cs = await canvases(phone);
  drawnAtDevicePixels(cs);
  // The canvas draws at 3x: Plotters measures its text with a span it adds to the body
  // (this style is its own, plotters/src/style/font/web.rs). Wider than the screen, the
  // span must stay one line, or labels are cut and legend markers slip off them.
  const span = await phone.evaluate(() => {
    const s = document.createElement("span");
    s.textContent = "B prev-idle (v3.8+sis-prev-idle)";
    s.setAttribute("style", "display: inline-block; font-family:sans-serif; font-style:normal; font-size: 35.1px; position: fixed; top: 100%");
    document.body.append(s);
    const r = [s.offsetWidth, s.offsetHeight];
    s.remove();
    return r;
  });
  assert.ok(span[0] > 390 && span[1] < 35.1 * 1.5, `a label measured at 3x is one line: ${span[0]} x ${span[1]} px`);
  const labels = made.experiment.kernels.map((k) => k.name);
  for (const id of REPORT_CHARTS) {
    const t = await chartTexts(phone, id);
    assert.deepEqual(textProblems(t), [], `${id} at ${t.w}x${t.h}`);
    const small = t.texts.filter((x) => x.px < 11).map((x) => `"${x.t}" ${x.px}px`);
    assert.deepEqual(small, [], `${id}: text under 11 px on a phone`);
    for (const name of labels) assert.ok(t.texts.some((x) => x.t.includes(name)), `${id}'s legend names ${name} whole`);
  }
  assert.ok(await phone.evaluate(() => document.documentElement.scrollWidth) <= 390);
  await phone.context().close();
  // The laptop: the lecturer's page out of presenter mode at 1366x768.
  const p = lecturer;
  await p.keyboard.press("f");
  await p.setViewportSize({ width: 1366, height: 768 });
  await p.waitForTimeout(800);
  await p.evaluate(() => document.querySelector("section.results .charts").scrollIntoView());
  await shot(p, "5-laptop-charts");
  drawnAtDevicePixels(await canvases(p));
  for (const id of REPORT_CHARTS) assert.deepEqual(textProblems(await chartTexts(p, id)), [], `${id} at 1366`);
});

test("6: the keyboard reaches Run in a few Tab presses, the machine editor is one stop, shortcuts yield to buttons", async () => {
  const p = await newPage("keyboard");
  await openPage(p);
  const focused = () => p.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
  // The first Tab stop is the skip link; Enter on it lands on Run.
  let tabs = 0;
  while ((await focused()) !== "run" && tabs < 10) {
    await p.keyboard.press("Tab");
    tabs++;
    if ((await focused()) === "skip-to-run") await p.keyboard.press("Enter");
    await p.waitForTimeout(50);
  }
  assert.equal(await focused(), "run", `Run after ${tabs} Tab presses`);
  // Without the skip link, counted for the report.
  await p.evaluate(() => document.activeElement.blur());
  await p.evaluate(() => scrollTo(0, 0));
  await p.focus("#skip-to-run");
  let plain = 1;
  while ((await focused()) !== "run" && plain < 300) {
    await p.keyboard.press("Tab");
    plain++;
  }
  // A 64-CPU machine: the editor is one Tab stop, arrow keys move inside it.
  await p.fill("#topo-spec", "2x1x16x2");
  await p.press("#topo-spec", "Tab");
  await p.waitForFunction(() => document.querySelectorAll(".topo .cpu").length === 64);
  const stops = await p.$$eval(".topo[data-arrows] :is(button, select)", (els) => [els.length, els.filter((e) => e.tabIndex >= 0).length]);
  assert.deepEqual(stops[1], 1, `${stops[0]} controls, one Tab stop`);
  await p.focus("#topo-spec");
  await p.keyboard.press("Tab");
  const inEditor = () => p.evaluate(() => document.activeElement.matches("[data-arrows] :is(button, select)") && document.activeElement.outerHTML.slice(0, 80));
  const first = await inEditor();
  assert.ok(first, "Tab from the spec goes into the editor");
  await p.keyboard.press("ArrowRight");
  const second = await inEditor();
  assert.ok(second && second !== first, "→ moves to the next control");
  await p.keyboard.press("Tab");
  assert.equal(await inEditor(), false, "one Tab leaves the editor's controls");
  let plain64 = 0;
  await p.focus("#skip-to-run");
  while ((await focused()) !== "run" && plain64 < 300) {
    await p.keyboard.press("Tab");
    plain64++;
  }
  console.log(`# keyboard: Run after ${tabs} Tab press(es) with the skip link; ${plain} without it (default form), ${plain64} on a 64-CPU machine; the editor holds ${stops[0]} controls in one stop`);
  // "?" lists the Run shortcut, and Ctrl+Enter runs from inside a field.
  await p.evaluate(() => document.activeElement.blur());
  await p.keyboard.press("?");
  assert.match(await p.textContent(".help"), /Ctrl\s*Enter\s*run the sweep/);
  await p.keyboard.press("Escape");
  await p.focus("#seed");
  await p.keyboard.press("Control+Enter");
  await p.waitForSelector("#cancel, section.results", { timeout: 10_000 });
  if (await p.$("#cancel")) await p.click("#cancel");
  // Live mode: Space on a focused Reset resets, on a focused Play plays; elsewhere it steps.
  await p.click("#tab-live");
  await p.waitForSelector(".live-mode .topo .cpu");
  for (let i = 0; i < 3; i++) await p.keyboard.press("Space");
  await p.waitForFunction(() => /^3 wakeups stepped/.test(document.querySelector("#live-status").textContent));
  await p.focus("#live-reset");
  await p.keyboard.press("Space");
  await p.waitForFunction(() => /^0 wakeups stepped/.test(document.querySelector("#live-status").textContent));
  await p.focus("#live-play");
  await p.keyboard.press("Space");
  await p.waitForFunction(() => document.querySelector("#live-play").getAttribute("aria-pressed") === "true");
  await p.keyboard.press("Space");
  await p.waitForFunction(() => document.querySelector("#live-play").getAttribute("aria-pressed") === "false");
  await p.context().close();
});

test("no page error", async () => {
  await lecturer.context().close();
  assert.deepEqual(problems, []);
});

