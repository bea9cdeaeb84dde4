// Policy scripts in the page: a kernel card's script runs in the script worker (the
// worker built with the Rhai engine, loaded only for an experiment with a script). A
// script link opens and reproduces the CLI's report byte for byte; the two templates
// that restate a kernel give that kernel's results byte for byte in the browser; bad
// scripts fail their run with one line naming the script's line, and the page lives on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { CLI, OUT, problems, download, newPage, openPage } from "./helpers.js";

if (!CLI) throw new Error("set SCHEDSIM_CLI (scripts/test-web.sh does)");
const TEMPLATES = path.join(path.dirname(new URL(import.meta.url).pathname), "../../crates/schedsim/policies");
const template = (name) => fs.readFileSync(path.join(TEMPLATES, `${name}.rhai`), "utf8");

// A link made the page's way (zlib + base64url).
function link(experiment) {
  const z = zlib.deflateSync(Buffer.from(JSON.stringify({ experiment })), { level: 9 });
  return "#v1." + z.toString("base64url");
}

// The CLI's experiment `preset` with these kernels, one iteration of `clients`.
function experiment(preset, kernels, durationMs, clients) {
  const e = JSON.parse(execFileSync(CLI, ["show", preset], { encoding: "utf8" }));
  return { ...e, kernels, duration_ms: durationMs, iterations: 1, clients };
}

// A link runs its experiment as it opens: wait for the results or the failure.
async function settled(page, timeoutMs = 240_000) {
  await page.waitForFunction(() => !document.querySelector("#cancel") && (document.querySelector("section.results[data-wall-ms]") || document.querySelector("#sweep-error, #sweep-runs-failed")), null, { timeout: timeoutMs, polling: 100 });
}

async function reportOf(page) {
  const failed = await page.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
  return (await download(page, "#export-json")).text;
}

const samePoints = (report, a, b) => {
  const r = JSON.parse(report);
  assert.ok(r.configs[a].points.length > 0);
  assert.equal(JSON.stringify(r.configs[a].points), JSON.stringify(r.configs[b].points),
    `${r.configs[a].label} and ${r.configs[b].label} differ in the page`);
};

let page;

test("a script link opens, runs in the script worker and is the CLI's report byte for byte; seed 001's patch as a script is the switch", async () => {
  page = await newPage("policy", { viewport: { width: 1360, height: 900 }, foreign: true });
  const workers = [];
  page.on("worker", (w) => workers.push(w.url()));
  const e = experiment("seed001", [
    { name: "switch", preset: "v3.8", overrides: { "sis-prev-idle": true } },
    { name: "script", preset: "v3.8", policy: template("seed001-v3.8") },
  ], 300, [1, 4]);
  // An experiment without a script runs in the plain workers only.
  await openPage(page, link(experiment("seed001", [{ name: "v3.8", preset: "v3.8" }], 50, [1])));
  await settled(page);
  await reportOf(page);
  assert.ok(workers.length > 0 && !workers.some((u) => /policy-worker/.test(u)), `the script worker is loaded only for a script (workers: ${workers.join(", ")})`);
  page = await newPage("policy", { viewport: { width: 1360, height: 900 }, foreign: true });
  page.on("worker", (w) => workers.push(w.url()));
  await openPage(page, link(e));
  await settled(page);
  const report = await reportOf(page);
  assert.ok(workers.some((u) => /policy-worker/.test(u)), `the runs went to the script worker (workers: ${workers.join(", ")})`);
  const file = path.join(OUT, "policy-experiment.json");
  fs.writeFileSync(file, JSON.stringify(JSON.parse(report).experiment));
  const cli = execFileSync(CLI, ["run", file, "--json", "--no-progress"], { encoding: "utf8", maxBuffer: 64 << 20 });
  assert.equal(report + "\n", cli, "the page's report differs from `schedsim run --json` on the link's experiment");
  samePoints(report, 0, 1);
});

test("live mode steps a scripted kernel in the script worker: each script call is a step of the decision trace", async () => {
  // The page of the test above: seed001 with kernel B = v3.8 + the seed001-v3.8 script.
  const workers = [];
  page.on("worker", (w) => workers.push(w.url()));
  await page.click("#tab-live");
  await page.waitForSelector("#live-kernel");
  await page.selectOption("#live-kernel", "1");
  await page.waitForFunction(() => /^0 wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 60_000 });
  assert.ok(workers.some((u) => /policy-worker/.test(u)), `live mode runs in the script worker (workers: ${workers.join(", ")})`);
  // Step until a wakeup's select_idle_sibling was the script's (the first wakeups of
  // seed001's pair may be decided before it: an idle target on v3.8).
  let steps = 0;
  for (; steps < 30; steps++) {
    await page.keyboard.press("Space");
    await page.waitForFunction((n) => document.querySelector("#live-status").textContent.startsWith(`${n} wakeups`), steps + 1, { timeout: 20_000 });
    if (/select_idle_sibling \(script\)/.test(await page.textContent("#trace-steps"))) break;
  }
  assert.ok(steps < 30, "no step of the script in 30 wakeups");
  assert.equal(await page.$("#live-error"), null, "the script's run did not fail");
  await page.locator(".live-mode .live-grid").screenshot({ path: path.join(OUT, "policy-live-step.png") });
});

test("v5.15's select_idle_sibling as a script is v5.15 byte for byte in the browser", async () => {
  const e = experiment("demo", [
    { name: "kernel", preset: "v5.15" },
    { name: "script", preset: "v5.15", policy: template("sis-v5.15") },
  ], 100, [1, 4, 8]);
  page = await newPage("policy-sis", { viewport: { width: 1360, height: 900 } });
  await openPage(page, link(e));
  await settled(page);
  samePoints(await reportOf(page), 0, 1);
});

test("the kernel card's editor: a template, a compile check in the script worker, an error at its line blocks Run", async () => {
  page = await newPage("policy-editor", { viewport: { width: 1360, height: 900 }, foreign: true });
  await openPage(page, link(experiment("seed001", [{ name: "v3.8", preset: "v3.8" }, { name: "mine", preset: "v3.8" }], 50, [1])));
  await settled(page);
  await page.click("#k1-policy-add");
  await page.waitForFunction(() => document.querySelector("#k1-policy-err")?.textContent === "compiles", null, { timeout: 60_000 });
  await page.selectOption("#k1-policy-template", "seed001-v3.8");
  await page.waitForFunction((t) => document.querySelector("#k1-policy-text").value === t, template("seed001-v3.8"));
  await page.waitForFunction(() => document.querySelector("#k1-policy-err").textContent === "compiles");
  assert.match(await page.textContent("#k1-policy .hint"), /travels in the page's link: about [\d,]+ of the 32,768 characters/);
  assert.equal(await page.isDisabled("#run"), false);
  // A syntax error on line 2: marked at its line with the compiler's message; Run is off.
  await page.fill("#k1-policy-text", "fn select_idle_sibling(p, prev, target) {\n  let x = ;\n  target\n}\n");
  await page.waitForFunction(() => /^line 2:\d+: /.test(document.querySelector("#k1-policy-err").textContent), null, { timeout: 10_000 });
  assert.equal(await page.textContent("#k1-policy .policy-gutter li.error-line"), "2");
  assert.equal(await page.getAttribute("#k1-policy-text", "aria-invalid"), "true");
  assert.equal(await page.isDisabled("#run"), true, "Run is disabled while the script does not compile");
  await page.locator(".kernel[data-kernel=\"1\"]").screenshot({ path: path.join(OUT, "policy-editor-error.png") });
  // Fixed, it compiles and Run is back; the link carries it.
  await page.fill("#k1-policy-text", template("always-prev"));
  await page.waitForFunction(() => document.querySelector("#k1-policy-err").textContent === "compiles", null, { timeout: 10_000 });
  assert.equal(await page.isDisabled("#run"), false);
  const carried = () => {
    const frag = decodeURIComponent(new URL(page.url()).hash);
    return JSON.parse(zlib.inflateSync(Buffer.from(frag.slice(4), "base64url")).toString("utf8")).experiment.kernels[1].policy;
  };
  for (let i = 0; i < 50 && carried() !== template("always-prev"); i++) await page.waitForTimeout(100);
  assert.equal(carried(), template("always-prev"), "the link carries the script");
});

test("bad scripts fail their run with one line naming the script's line; the page lives on", async () => {
  const sis = (body) => `fn select_idle_sibling(p, prev, target) {\n${body}\n}\n`;
  const cases = [
    ["syntax error", sis("  let x = ;\n  target"), /line 2:\d+: /],
    ["infinite loop", sis("  loop { }"), /line \d+:\d+: .*per-call budget/],
    ["huge array", sis("  let a = [];\n  loop { a.push(1); }"), /line \d+:\d+: Size of array/],
    ["returns nothing", sis("  let x = 1;"), /line 1:\d+: select_idle_sibling returned nothing/],
    ["returns a string", sis("  \"three\""), /line 1:\d+: select_idle_sibling returned .*not a CPU number/],
  ];
  for (const [what, src, want] of cases) {
    // A page each: a link opened in the same page is only a new fragment.
    page = await newPage(`policy-bad ${what}`, { viewport: { width: 1360, height: 900 } });
    const e = experiment("demo", [{ name: "v5.15", preset: "v5.15" }, { name: "bad", preset: "v5.15", policy: src }], 30, [2]);
    await openPage(page, link(e));
    await settled(page, 60_000);
    const text = await page.textContent("#sweep-error, #sweep-runs-failed");
    assert.match(text, want, `${what}: ${text}`);
    // One line per failed run: the message, not a stack or a panic.
    assert.doesNotMatch(text, /panicked|RuntimeError|unreachable/, what);
    // Alive: the page answers and its machine is drawn.
    assert.equal(await page.evaluate(() => document.querySelectorAll(".topo .cpu").length > 0), true, what);
  }
  await page.screenshot({ path: path.join(OUT, "policy-bad-run.png") });
  // Live mode runs the script too (in the script worker): kernel B, brought along to
  // kernel A's time at each step, fails at its first wakeup, said in one line naming the
  // script's line, while kernel A steps on.
  await page.click("#tab-live");
  await page.waitForFunction(() => /^0 wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 60_000 });
  for (let n = 1; n <= 3; n++) {
    await page.keyboard.press("Space");
    await page.waitForFunction((k) => document.querySelector("#live-status").textContent.startsWith(`${k} wakeups stepped`), n, { timeout: 20_000 });
  }
  assert.match(await page.textContent("#live-error"), /^kernel B \(bad\): policy script line 1:\d+: select_idle_sibling returned .*not a CPU number/);
  assert.match(await page.textContent("#live-what"), /B bad = v5\.15 as released with a policy script$/);
  await page.screenshot({ path: path.join(OUT, "policy-live-error.png") });
});

test("the classroom's exercise: the student's script beside the patch; the patch as a script is the patch byte for byte", async () => {
  page = await newPage("policy-exercise", { viewport: { width: 1360, height: 900 }, foreign: true });
  await openPage(page);
  await settled(page);
  await page.click("#tab-classroom");
  await page.click("#guide-exercise-start");
  await page.waitForSelector("#k2-policy-text");
  await page.waitForFunction(() => document.querySelector("#k2-policy-err")?.textContent === "compiles", null, { timeout: 60_000 });
  assert.match(await page.inputValue("#k2-policy-text"), /kernel::select_idle_sibling\(p, prev, target\)/, "it starts as the kernel's own choice");
  await page.selectOption("#k2-policy-template", "seed001-v3.8");
  await page.waitForFunction(() => document.querySelector("#k2-policy-err").textContent === "compiles");
  await page.click("#run");
  await settled(page);
  const report = await reportOf(page);
  const r = JSON.parse(report);
  assert.deepEqual(r.configs.map((c) => c.label), ["v3.8", "v3.8+sis-prev-idle", "v3.8+policy"]);
  samePoints(report, 1, 2);
  // The student's kernel is v3.8 with a script: not "the same configuration" as A.
  assert.doesNotMatch(await page.textContent("section.results"), /same configuration/);
  await page.locator("section.results").screenshot({ path: path.join(OUT, "policy-exercise-results.png") });
});

test("the Diff view asks a script as kernel B: seed 001's patch as a script, against v3.8, as the CLI counts it", async () => {
  page = await newPage("policy-diff", { viewport: { width: 1366, height: 768 }, foreign: true });
  const e = experiment("seed001", [
    { name: "v3.8", preset: "v3.8" },
    { name: "script", preset: "v3.8", policy: template("seed001-v3.8") },
  ], 300, [1]);
  await openPage(page, link(e));
  await settled(page);
  await page.click("#tab-diff");
  await page.waitForSelector("#diff-sentence", { timeout: 120_000 });
  const summary = (await page.textContent("#diff-summary")).replace(/\s+/g, " ");
  const m = summary.match(/at (\d+) of (\d+) compared wakeups/);
  assert.ok(m, summary);
  const file = path.join(OUT, "policy-diff-experiment.json");
  fs.writeFileSync(file, JSON.stringify(e));
  const j = JSON.parse(execFileSync(CLI, ["diff", file, "--count", "1000", "--details", "0", "--json"], { encoding: "utf8" }));
  assert.ok(j.differ > 0, "the patch as a script differs from v3.8 somewhere");
  assert.deepEqual([Number(m[1]), Number(m[2])], [j.differ, j.compared], "the page and the CLI count the same differences");
  // B's trace is the script's call, with the helpers it read.
  assert.match(await page.textContent("#diff-trace-b"), /select_idle_sibling \(script\)/);
  assert.match(await page.textContent("#diff-sentence"), /B \(script\) would choose CPU \d+/);
  await page.screenshot({ path: path.join(OUT, "policy-diff-b-1366x768.png") });
});

test("no page problems", () => {
  assert.deepEqual(problems, []);
});
