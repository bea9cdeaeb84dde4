// End-to-end tests of issue 39, "A shared link opens on its answer", at the viewports
// where each finding was seen: a lecturer's projector (1920x1080), a kernel developer's
// laptop (1366x768) and a student's phone (390x844, device pixel ratio 3).
//
//   1. a seed001 link, a classroom card's "Run it" (the first time after a load), a Run
//      pressed at the foot of the page and a trace's import land on their answer: the
//      results' top (or the import's summary) on the first screen;
//   2, 3 (finding 3). a deterministic replay's A/B: equal values are no difference,
//      counts in their own units, the header says "replay throughput" once, and a
//      replay on another machine than the trace's says so at the table, with the
//      trace's shape one click away;
//   4. two kernels of one version, one with a script, are named apart by themselves;
//      refusals in the card's words; the script editor grows with its text;
//   2, 7 (findings 2 and 7). the exercise, the mmtests table and live mode fit a phone;
//      seed003-tbench's x labels do not overlap at 1920;
//   5. the tagline names CFS and EEVDF; presenter mode keeps the kernels at hand.
//
// Screenshots go to SCHEDSIM_OUT as 39-*.png.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OUT, problems, newPage, openPage, chartTexts, textProblems } from "./helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const VIEWPORTS = [
  { width: 390, height: 844, phone: true },
  { width: 1366, height: 768 },
  { width: 1920, height: 1080 },
];

const shot = (p, name) => {
  const { width, height } = p.viewportSize();
  return p.screenshot({ path: path.join(OUT, `39-${name}-${width}x${height}.png`) });
};

async function page(label, vp) {
  return newPage(`${label}-${vp.width}`, { viewport: { width: vp.width, height: vp.height }, phone: !!vp.phone });
}

// Waits until the sweep of the experiment named `name` is done and its charts drawn.
async function doneOf(p, name, timeout = 240_000) {
  await p.waitForFunction((name) => {
    const t = document.querySelector("#mmtests");
    return !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]") && t && t.textContent.includes(`, ${name} on `);
  }, name, { timeout, polling: 100 });
  assert.equal(await p.$("#sweep-error"), null, "the sweep ran");
  // The charts draw in tasks of their own after a paint.
  await p.waitForTimeout(700);
}

// Where `selector`'s top is in the view, and the scroll position.
const topOf = (p, selector) => p.evaluate((s) => ({ top: document.querySelector(s).getBoundingClientRect().top, y: scrollY, h: innerHeight }), selector);

function onFirstScreen(at, what) {
  assert.ok(at.top >= 0 && at.top < at.h * 0.4, `${what}: its top is at ${Math.round(at.top)} px of ${at.h} (page scrolled to ${Math.round(at.y)})`);
}

let seed001Link;

test("1: a seed001 link opens on its results at 390x844, 1366x768 and 1920x1080", async () => {
  const maker = await page("link-maker", VIEWPORTS[1]);
  await openPage(maker);
  await maker.selectOption("#preset", "seed001");
  await maker.waitForTimeout(800); // the address bar follows after its debounce
  seed001Link = new URL(maker.url()).hash;
  await maker.context().close();
  assert.match(seed001Link, /^#v1\./);
  for (const vp of VIEWPORTS) {
    const p = await page("link", vp);
    await openPage(p, seed001Link);
    await doneOf(p, "seed001");
    const at = await topOf(p, "section.results");
    console.log(`# seed001 link at ${vp.width}x${vp.height}: results' top at ${Math.round(at.top)}, scrollY ${Math.round(at.y)}`);
    await shot(p, "1-link");
    onFirstScreen(at, `seed001 link at ${vp.width}x${vp.height}`);
    await p.context().close();
  }
});

test("1: a classroom card's Run it lands on the results the first time after a load, at every width", async () => {
  for (const vp of VIEWPORTS) {
    const p = await page("card", vp);
    await openPage(p);
    await doneOf(p, "demo");
    await p.click("#tab-classroom");
    await p.click('button[aria-label="Run seed001"]');
    await doneOf(p, "seed001");
    const at = await topOf(p, "section.results");
    console.log(`# Run it at ${vp.width}x${vp.height}: results' top at ${Math.round(at.top)}, scrollY ${Math.round(at.y)}`);
    await shot(p, "1-card");
    onFirstScreen(at, `Run it at ${vp.width}x${vp.height}`);
    // The bar's way back to the results is a button that says what it does.
    const back = await p.$eval("#results-ready", (b) => ({ tag: b.tagName, text: b.textContent }));
    assert.deepEqual(back, { tag: "BUTTON", text: "↑ Go to the results" });
    await p.context().close();
  }
});

test("1: Run pressed at the foot of the form lands on the results; a scroll of the user's is not taken back", async () => {
  const p = await page("run", VIEWPORTS[1]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.selectOption("#preset", "seed001");
  await p.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await p.click("#run");
  await doneOf(p, "seed001");
  const at = await topOf(p, "section.results");
  await shot(p, "1-run");
  onFirstScreen(at, "Run at the foot of the page");
  // A user who scrolls away while a sweep runs keeps their place.
  await p.selectOption("#preset", "seed002");
  await p.click("#run");
  await p.mouse.wheel(0, 1500);
  await p.waitForTimeout(300);
  await doneOf(p, "seed002");
  const away = await topOf(p, "section.results");
  assert.ok(away.top < -100, `the view stays where the user scrolled, not on the results (their top at ${Math.round(away.top)})`);
  await p.context().close();
});

test("1: a trace's import lands on its summary at 1366x768 and 390x844", async () => {
  for (const vp of [VIEWPORTS[1], VIEWPORTS[0]]) {
    const p = await page("import", vp);
    await openPage(p);
    await doneOf(p, "demo");
    await p.locator("#replay-file").scrollIntoViewIfNeeded();
    await p.setInputFiles("#replay-file", path.join(ROOT, "traces/make.perf.txt.gz"));
    await p.waitForSelector("#replay-summary", { timeout: 60_000 });
    await p.waitForTimeout(300);
    const at = await topOf(p, "#replay-summary");
    await shot(p, "1-import");
    onFirstScreen(at, `the import's summary at ${vp.width}x${vp.height}`);
    // Not under the sticky Run bar either.
    const bar = await p.evaluate(() => document.querySelector(".runbar").getBoundingClientRect().top);
    assert.ok(at.top < bar, `summary at ${at.top}, Run bar from ${bar}`);
    await p.context().close();
  }
});

test("3: a deterministic replay's A/B draws no difference beyond noise, says counts as counts and the other machine at the table", async () => {
  const p = await page("replay-ab", VIEWPORTS[1]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.selectOption('select[aria-label="Kernel A version"]', "v6.5");
  await p.selectOption('select[aria-label="Kernel B version"]', "v6.18");
  await p.setInputFiles("#replay-file", path.join(ROOT, "traces/make.perf.txt.gz"));
  await p.waitForSelector("#replay-summary", { timeout: 60_000 });
  await p.fill("#clients", "1");
  await p.press("#clients", "Tab");
  await p.fill("#iterations", "2");
  await p.press("#iterations", "Tab");
  const name = await p.inputValue("#exp-name");
  await p.click("#run");
  await doneOf(p, name);
  const table = await p.textContent("#mmtests");
  assert.match(table, /^replay throughput \(x recorded/, "the header names the metric once");
  const notes = await p.textContent("#result-notes");
  assert.match(notes, /Every iteration gave the same value \(stddev 0\)/);
  const t = await chartTexts(p, "throughput");
  const caption = t.texts.map((x) => x.t).join(" | ");
  assert.match(caption, /hollow: no difference \(stddev 0\)/, caption);
  assert.doesNotMatch(caption, /beyond noise/, caption);
  const hmean = table.split("\n").find((l) => /^Hmean/.test(l)) || "";
  console.log(`# replay A/B: ${hmean.trim()}`);
  // The trace beside the model, on the teaching machine's 8 CPUs: said at the table.
  await p.waitForSelector("#replay-table", { timeout: 120_000 });
  const rows = await p.$$eval("#replay-table tbody tr th", (ths) => ths.map((t) => t.textContent));
  assert.ok(rows.includes("SMT sibling (count)") && rows.includes("migrations / 1000 wakeups"), rows.join(", "));
  const other = await p.textContent("#replay-other-machine");
  assert.match(other, /Replayed on \d+ CPUs; the trace was recorded on 2\./);
  const same = await p.$$eval("#replay-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())).find((r) => r[0] === "same CPU as the machine"));
  assert.deepEqual(same.slice(2), ["other machine", "other machine"]);
  await p.locator("#replay-other-machine").scrollIntoViewIfNeeded();
  await shot(p, "3-replay-other-machine");
  // One click to the trace's shape: the note goes.
  await p.click("#replay-other-machine button.primary");
  await p.waitForFunction(() => /2 CPUs/.test(document.querySelector("#machine-desc").textContent));
  await p.click("#run");
  await doneOf(p, name);
  await p.waitForSelector("#replay-table", { timeout: 120_000 });
  assert.equal(await p.$("#replay-other-machine"), null);
  await p.locator("section.results").scrollIntoViewIfNeeded();
  await shot(p, "3-replay-ab");
  // Equal values: B the same configuration as A under a name of its own.
  await p.selectOption('select[aria-label="Kernel B version"]', "v6.5");
  await p.fill("#k1-name", "again");
  await p.press("#k1-name", "Tab");
  await p.click("#run");
  await doneOf(p, name);
  assert.match(await p.textContent("#result-notes"), /again vs v6\.5: no difference at every count \(the same value\)\./);
  const eq = (await chartTexts(p, "throughput")).texts.map((x) => x.t).join(" | ");
  assert.match(eq, /no difference \(stddev 0: deterministic runs\)/, eq);
  await p.locator('figure[data-chart="throughput"]').scrollIntoViewIfNeeded();
  await shot(p, "3-replay-equal");
  await p.context().close();
});

test("4: v6.18 beside v6.18 with a script is named apart by itself; refusals in the card's words; the editor grows", async () => {
  const p = await page("script-names", VIEWPORTS[1]);
  await openPage(p);
  await p.selectOption('select[aria-label="Kernel A version"]', "v6.18");
  await p.selectOption('select[aria-label="Kernel B version"]', "v6.18");
  // One version twice: refused, in the card's words (no "kernels[1]", no field_names).
  const refused = await p.textContent(".runbar");
  assert.doesNotMatch(refused, /kernels\[|_policy_|field /, refused);
  assert.match(refused, /Kernel B, name: "v6\.18" is kernel A's name too/, refused);
  await p.click("#k1-policy-add");
  await p.waitForFunction(() => document.querySelector("#k1-name").value === "v6.18 + script");
  assert.equal(await p.inputValue("#k0-name"), "v6.18");
  // While it compiles, the Run bar names the field as the card does.
  const pending = await p.textContent(".runbar");
  assert.doesNotMatch(pending, /_/, pending);
  await p.waitForFunction(() => /compiles/.test(document.querySelector("#k1-policy-err")?.textContent ?? ""), null, { timeout: 60_000 });
  assert.ok(!(await p.isDisabled("#run")), "A/B runs as it is");
  const rows = await p.$eval("#k1-policy-text", (t) => t.rows);
  assert.ok(rows >= 12, `the editor is ${rows} lines tall`);
  await p.fill("#k1-policy-text", "// a longer script\n" + "// line\n".repeat(20) + "fn select_idle_sibling(p, prev, target) { prev }\n");
  await p.waitForFunction(() => document.querySelector("#k1-policy-text").rows >= 23);
  const fits = await p.$eval("#k1-policy-text", (t) => t.scrollHeight <= t.clientHeight + 2);
  assert.ok(fits, "the editor shows its whole text");
  await p.locator("#k1-policy").scrollIntoViewIfNeeded();
  await shot(p, "4-script-names");
  await p.context().close();
});

test("2, 7: the exercise, the mmtests table and live mode fit a 390 px phone; the exercise shows kernel C's editor", async () => {
  const p = await page("phone-fit", VIEWPORTS[0]);
  await openPage(p);
  await doneOf(p, "demo");
  const wide = () => p.evaluate(() => ({
    sw: document.documentElement.scrollWidth,
    wide: [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && getComputedStyle(e).position !== "fixed")
      .slice(0, 6).map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${[...e.classList].join(".")}`),
  }));
  // The mmtests table scrolls inside a box that says so.
  await p.locator("#mmtests").scrollIntoViewIfNeeded();
  await shot(p, "7-mmtests");
  let w = await wide();
  assert.ok(w.sw <= 390, `with the results the page is ${w.sw} px wide: ${w.wide}`);
  assert.match(await p.textContent(".headline-table .wide-hint"), /The table is wider than this box: scroll it sideways/);
  // The exercise.
  await p.click("#tab-classroom");
  await p.click("#guide-exercise-start");
  await p.waitForSelector("#k2-policy-text");
  await p.waitForTimeout(500);
  w = await wide();
  await shot(p, "2-exercise");
  assert.ok(w.sw <= 390, `the exercise makes the page ${w.sw} px wide: ${w.wide}`);
  const ed = await topOf(p, "#k2-policy");
  assert.ok(ed.top >= 0 && ed.top < ed.h * 0.6, `kernel C's editor at ${Math.round(ed.top)} of ${ed.h}`);
  // Live mode.
  await p.click("#tab-live");
  await p.waitForSelector(".live-mode .topo .cpu");
  await p.waitForTimeout(300);
  w = await wide();
  await shot(p, "8-live");
  assert.ok(w.sw <= 390, `live mode makes the page ${w.sw} px wide: ${w.wide}`);
  await p.context().close();
});

test("7: seed003-tbench's client labels do not overlap at 1920x1080; the migrations legend leaves the bars free on a phone", async () => {
  const p = await page("tbench-axis", VIEWPORTS[2]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.selectOption("#preset", "seed003-tbench");
  await p.fill("#iterations", "1");
  await p.press("#iterations", "Tab");
  const name = await p.inputValue("#exp-name");
  await p.click("#run");
  await doneOf(p, name);
  const t = await chartTexts(p, "throughput");
  assert.deepEqual(textProblems(t), [], `throughput at ${t.w}x${t.h}`);
  const labels = t.texts.map((x) => x.t);
  assert.ok(labels.includes("320") && labels.includes("1"), labels.join(" "));
  await p.locator('figure[data-chart="throughput"]').scrollIntoViewIfNeeded();
  await shot(p, "7-tbench-axis");
  await p.context().close();

  const phone = await page("migrations-legend", VIEWPORTS[0]);
  await openPage(phone, seed001Link);
  await doneOf(phone, "seed001");
  await phone.locator('figure[data-chart="migrations"]').scrollIntoViewIfNeeded();
  await shot(phone, "7-migrations-legend");
  const m = await chartTexts(phone, "migrations");
  assert.deepEqual(textProblems(m), [], `migrations at ${m.w}x${m.h}`);
  await phone.context().close();
});

test("5: the tagline names CFS and EEVDF; presenter mode sets each kernel's version above the results", async () => {
  const p = await page("presenter-kernels", VIEWPORTS[2]);
  await openPage(p);
  await doneOf(p, "demo");
  assert.match(await p.textContent("header.top h1"), /CFS and EEVDF/);
  await p.keyboard.press("f");
  await p.waitForSelector("#kernel-strip");
  const strip = await topOf(p, "#kernel-strip");
  assert.ok(strip.top < strip.h, `the kernels' versions are on the first screen (${Math.round(strip.top)})`);
  await p.selectOption("#strip-k1", "v6.6");
  await p.waitForFunction(() => /v6\.6/.test(document.querySelector("#kernel-strip").textContent));
  await p.evaluate(() => scrollTo(0, 0));
  await shot(p, "5-presenter-kernels");
  assert.equal(await p.inputValue("#k1-name"), "v6.6", "the card follows (folded, but the same kernel)");
  await p.context().close();
});

test("5: the classroom's EEVDF card runs v6.5 against v6.6 and v6.12 and lands on the results", async () => {
  const p = await page("eevdf", VIEWPORTS[2]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.click("#tab-classroom");
  assert.match(await p.textContent("#guide-eevdf"), /EEVDF \(v6\.6\) gives each task a lag/);
  await p.click("#guide-eevdf-run");
  await doneOf(p, "eevdf");
  const at = await topOf(p, "section.results");
  onFirstScreen(at, "the EEVDF card's results");
  const table = await p.textContent("#mmtests");
  console.log(`# EEVDF card:\n${table.split("\n").filter((l) => /^(Amean|Hmean|Elapsed|Wakeups|Migrate|IPIs)/.test(l) || /v6\./.test(l)).join("\n")}`);
  assert.match(table, /v6\.5 .*v6\.6 .*v6\.12/s);
  await shot(p, "5-eevdf");
  await p.context().close();
});

test("6: a link that replays a trace by reference offers the button that picks the file", async () => {
  const p = await page("replay-ref", VIEWPORTS[1]);
  await openPage(p);
  await p.setInputFiles("#replay-file", path.join(ROOT, "traces/dbench.perf.txt.gz"));
  await p.waitForSelector("#replay-summary", { timeout: 60_000 });
  await p.waitForTimeout(800); // the address bar follows after its debounce
  const frag = new URL(p.url()).hash;
  await p.context().close();
  const q = await page("replay-ref-open", VIEWPORTS[1]);
  await openPage(q, frag);
  await q.waitForSelector("#replay-wanted-pick");
  const [chooser] = await Promise.all([q.waitForEvent("filechooser"), q.click("#replay-wanted-pick")]);
  await chooser.setFiles(path.join(ROOT, "traces/dbench.perf.txt.gz"));
  await q.waitForFunction(() => !document.querySelector("#replay-wanted") && !document.querySelector("#exp-invalid"), null, { timeout: 60_000 });
  assert.ok(!(await q.isDisabled("#run")));
  await shot(q, "6-replay-reference");
  await q.context().close();
  // The opened link's run request met the missing file: said in the page, not a crash.
  problems.splice(0, problems.length, ...problems.filter((s) => !/^replay-ref-open-1366: .*cannot run/.test(s)));
});

test("6: 'Replay a trace' is one click from the top at 1366x768, and the page names the file chosen", async () => {
  const p = await page("replay-jump", VIEWPORTS[1]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.evaluate(() => scrollTo(0, 0));
  onFirstScreen(await topOf(p, "#replay-jump"), "the Replay a trace button");
  const [chooser] = await Promise.all([p.waitForEvent("filechooser"), p.click("#replay-jump")]);
  assert.equal(await p.textContent("#replay-file-name"), " no file chosen yet");
  await chooser.setFiles(path.join(ROOT, "traces/make.perf.txt.gz"));
  await p.waitForSelector("#replay-summary", { timeout: 60_000 });
  assert.equal(await p.textContent("#replay-file-name"), " chosen: make.perf.txt.gz");
  await p.locator(".replay").scrollIntoViewIfNeeded();
  await shot(p, "6-replay-chosen");
  await p.context().close();
});

test("6: the Diff view's link of a replay too large for a link asks for its trace, then diffs", async () => {
  const p = await page("diff-ref", VIEWPORTS[1]);
  await openPage(p);
  await p.setInputFiles("#replay-file", path.join(ROOT, "traces/dbench.perf.txt.gz"));
  await p.waitForSelector("#replay-summary", { timeout: 60_000 });
  await p.click("#tab-diff");
  await p.waitForSelector("#diff-sentence", { timeout: 120_000 });
  await p.waitForTimeout(800); // the address bar follows after its debounce
  const frag = new URL(p.url()).hash;
  await p.context().close();
  const q = await page("diff-ref-open", VIEWPORTS[1]);
  await q.goto(new URL(frag, process.env.SCHEDSIM_URL).href);
  await q.waitForSelector("#diff-needs-trace");
  assert.match(await q.textContent("#diff-needs-trace"), /^No diff yet: this experiment replays the trace dbench\.perf\.txt\.gz \(sha256 [0-9a-f]{12}…\), whose tasks a link does not carry\. Load that file here and the diff runs\.$/);
  assert.equal(await q.$("#diff-error"), null, "no 'The diff failed'");
  await shot(q, "6-diff-needs-trace");
  const [chooser] = await Promise.all([q.waitForEvent("filechooser"), q.click("#replay-wanted-pick")]);
  await chooser.setFiles(path.join(ROOT, "traces/dbench.perf.txt.gz"));
  await q.waitForSelector("#diff-sentence", { timeout: 120_000 });
  assert.match(await q.textContent("#diff-summary"), /compared wakeups/);
  await shot(q, "6-diff-from-link");
  await q.context().close();
  problems.splice(0, problems.length, ...problems.filter((s) => !/^diff-ref-open-1366: .*cannot run/.test(s)));
});

test("9: a broken link stays in the address bar and is said for what it is; 'Link copied.' goes at the next run", async () => {
  const p = await page("links", VIEWPORTS[1]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.evaluate(() => scrollTo(0, 0));
  await p.click("#copy-link");
  await p.waitForSelector("#permalink");
  const url = await p.inputValue("#permalink");
  await p.click("#run");
  await p.waitForSelector("#permalink", { state: "detached", timeout: 10_000 });
  await doneOf(p, "demo");
  await p.context().close();
  const q = await page("links-appended", VIEWPORTS[1]);
  const pasted = `${url}xyz`;
  await q.goto(pasted);
  await q.waitForSelector("#link-notice");
  const msg = await q.textContent("#link-notice");
  assert.match(msg, /This link has 3 characters added after its end \("xyz"\): delete them from the address, or copy the link again\. The address bar keeps the link as pasted\./);
  assert.doesNotMatch(msg, /cut off|incomplete/);
  await q.waitForTimeout(800);
  assert.equal(q.url(), pasted, "the address bar still holds what was pasted");
  await shot(q, "9-appended-link");
  await q.context().close();
});

test("9: the timeline's keys are in the help and work before the plot has focus; live counts say what they count", async () => {
  const p = await page("tl-keys", VIEWPORTS[1]);
  await openPage(p);
  await p.click("#tab-live");
  await p.waitForSelector("#live-timeline .tl-lanes");
  for (let i = 0; i < 10; i++) await p.keyboard.press("Space");
  await p.waitForFunction(() => /^10 wakeups/.test(document.querySelector("#live-status").textContent));
  assert.match(await p.textContent(".live-counters"), /CPUs scanned for an idle one \d+/);
  await p.keyboard.press("?");
  const help = await p.textContent('.help[role="dialog"]');
  assert.match(help, /timeline \(when on screen\): zoom in, zoom out, fit all, follow the latest/);
  await p.keyboard.press("Escape");
  await p.locator("#live-timeline").scrollIntoViewIfNeeded();
  await p.evaluate(() => document.activeElement && document.activeElement.blur());
  const span = async () => p.$eval("#live-timeline", (el) => Number(el.dataset.viewEnd) - Number(el.dataset.viewStart));
  const before = await span();
  await p.keyboard.press("+");
  await p.waitForFunction((b) => { const d = document.querySelector("#live-timeline").dataset; return Number(d.viewEnd) - Number(d.viewStart) < b; }, before, { timeout: 5000 });
  assert.ok((await span()) < before, "+ zooms without a click on the plot first");
  await shot(p, "9-timeline-keys");
  await p.context().close();
});

test("7: in presenter mode at 1920x1080 the throughput chart, its % vs A panel included, shows whole above the Run bar", async () => {
  const p = await page("presenter-fit", VIEWPORTS[2]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.keyboard.press("f");
  await p.waitForFunction(() => document.documentElement.dataset.presenter === "on");
  await p.click("#run");
  await doneOf(p, "demo");
  const m = await p.evaluate(() => {
    const c = document.querySelector('canvas[aria-label="throughput chart"]').getBoundingClientRect();
    return { top: c.top, bottom: c.bottom, header: document.querySelector("header.top").getBoundingClientRect().bottom,
      bar: document.querySelector(".runbar").getBoundingClientRect().top };
  });
  await shot(p, "7-presenter-chart");
  assert.ok(m.top >= m.header && m.bottom <= m.bar, `the chart from ${Math.round(m.top)} to ${Math.round(m.bottom)} px, the view between the bars ${Math.round(m.header)} to ${Math.round(m.bar)}`);
  await p.context().close();
});

test("8: live mode on a 390 px phone: the machine first under the controls, names cut with an ellipsis, touch targets of 24 px and a 44 px Step", async () => {
  const p = await page("live-phone", VIEWPORTS[0]);
  await openPage(p);
  await doneOf(p, "demo");
  await p.click("#tab-live");
  await p.waitForSelector(".live-topo .cpu");
  await p.waitForFunction(() => document.querySelector("#wakeup-none"));
  assert.match(await p.textContent("#wakeup-none"), /A yellow CPU is leaving idle to run a task put on it/);
  for (let i = 0; i < 6; i++) {
    await p.tap("#live-step");
    await p.waitForFunction((n) => new RegExp(`^${n} wakeups`).test(document.querySelector("#live-status").textContent), i + 1);
  }
  await p.evaluate(() => scrollTo(0, 0));
  const m = await p.evaluate(() => {
    const box = (e) => e.getBoundingClientRect();
    // A timeline arrow is touched on its hit stroke (pointer-events: stroke), which its
    // box leaves out: its width is the arrow's target.
    const target = (e) => {
      const hit = e.querySelector?.(".tl-hit");
      if (hit) { const w = parseFloat(getComputedStyle(hit).strokeWidth); return { width: w, height: w }; }
      return box(e);
    };
    const small = [...document.querySelectorAll(".live-mode :is(button, select, input, a, summary, [role=button])")]
      .filter((e) => { const b = target(e); return box(e).width > 0 && (b.width < 24 || b.height < 24); })
      .map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute("class")} ${Math.round(box(e).width)}x${Math.round(box(e).height)}`);
    const names = [...document.querySelectorAll(".live-topo .cpu-task")].filter((e) => e.textContent)
      .map((e) => ({ text: e.textContent, title: e.title, ellipsis: getComputedStyle(e).textOverflow, inside: box(e).right <= box(e.closest(".cpu")).right + 0.5 }));
    const step = box(document.querySelector("#live-step"));
    return { topo: box(document.querySelector(".live-topo")).top + scrollY, trace: box(document.querySelector("aside.trace")).top + scrollY,
      perfetto: box(document.querySelector("#live-perfetto")).top + scrollY, step: [step.width, step.height], small, names };
  });
  await shot(p, "8-live-phone");
  assert.ok(m.topo < 700, `the machine starts ${Math.round(m.topo)} px down`);
  assert.ok(m.topo < m.trace && m.trace < m.perfetto, `machine, then decision, then the Perfetto export: ${JSON.stringify(m)}`);
  assert.ok(m.step[0] >= 44 && m.step[1] >= 44, `Step is ${m.step.join("x")} px`);
  assert.deepEqual(m.small, [], "controls under 24 px");
  assert.ok(m.names.length > 0);
  for (const n of m.names) assert.ok(n.title === n.text && n.ellipsis === "ellipsis" && n.inside, JSON.stringify(n));
  await p.context().close();
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
