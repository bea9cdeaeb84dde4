// End-to-end tests of the built playground: dist/ served on 127.0.0.1 under a sub-path,
// driven in Debian's Chromium through playwright-core. Run by scripts/test-web.sh, which
// sets SCHEDSIM_URL (the page), SCHEDSIM_NATIVE (the native twin binary) and
// SCHEDSIM_OUT (where screenshots, downloads and budgets go).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { BASE, CLI, cliParity, NATIVE, OUT, problems, download, newPage } from "./helpers.js";

const BUDGETS = process.env.SCHEDSIM_BUDGETS !== "0";
if (!NATIVE) throw new Error("set SCHEDSIM_NATIVE (scripts/test-web.sh does)");

// Also asks that the page reach no other origin and break no CSP rule.
const fresh = (label) => newPage(label, { viewport: { width: 1360, height: 900 }, clipboard: true, foreign: true });

async function shot(page, name) {
  const file = path.join(OUT, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

async function runSweep(page, timeoutMs = 240_000) {
  await page.click("#run");
  await page.waitForSelector("#run:not([disabled])");
  await page.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]"), null, { timeout: timeoutMs, polling: 100 });
  const failed = await page.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
  return Number(await page.getAttribute("section.results", "data-wall-ms"));
}

// Fails with the first differing line, keeping both files for a look.
function assertSameReport(pageJson, nativeJson, what) {
  if (pageJson === nativeJson) return;
  fs.writeFileSync(path.join(OUT, "report-page.json"), pageJson);
  fs.writeFileSync(path.join(OUT, "report-native.json"), nativeJson);
  const a = pageJson.split("\n"), b = nativeJson.split("\n");
  const i = a.findIndex((l, k) => l !== b[k]);
  assert.fail(`${what}: first difference at line ${i + 1}: page ${JSON.stringify(a[i])} vs native ${JSON.stringify(b[i])} (both kept in ${OUT})`);
}

function nativeReport(experimentJson) {
  const file = path.join(OUT, "experiment.json");
  fs.writeFileSync(file, experimentJson);
  return execFileSync(NATIVE, ["run", file], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "pipe"] });
}

// A link made the page's way (zlib + base64url), for hostile content.
function link(shared) {
  const z = zlib.deflateSync(Buffer.from(JSON.stringify(shared)), { level: 9 });
  return "#v1." + z.toString("base64url");
}

let page;
let firstReport; // exported JSON of the seed001 sweep
let firstTable;

test("the page loads, renders fast and asks no other origin", async () => {
  page = await fresh("main");
  await page.goto(BASE, { waitUntil: "commit" });
  const renderedMs = await page.waitForFunction(() => document.querySelector("header.top") && performance.now(), null, { polling: "raf", timeout: 30_000 });
  const firstRenderMs = await renderedMs.jsonValue();
  await page.waitForSelector(".topo .cpu");
  assert.match(await page.textContent("#machine-desc"), /8 CPUs/);
  fs.writeFileSync(path.join(OUT, "first-render.json"), JSON.stringify({ first_render_ms: firstRenderMs }));
  console.log(`# first render ${firstRenderMs.toFixed(0)} ms after navigation start`);
  await shot(page, "01-loaded");
});

test("topology: draw by direct manipulation; invalid shapes are refused at the spot", async () => {
  await page.click('[aria-label="Duplicate core 0 of node 0 LLC 0"]');
  await page.waitForFunction(() => /10 CPUs/.test(document.querySelector("#machine-desc").textContent));
  await page.selectOption('[aria-label="SMT width of node 0 LLC 1 core 0"]', "4");
  await page.waitForFunction(() => /12 CPUs/.test(document.querySelector("#machine-desc").textContent));
  assert.equal(await page.inputValue("#topo-spec"), "", "a non-uniform machine has no compact spec");
  await page.click('[aria-label="Add a NUMA node (a copy of the last)"]');
  await page.waitForFunction(() => /24 CPUs/.test(document.querySelector("#machine-desc").textContent));
  await page.fill('[aria-label="NUMA distance from node 0 to node 1"]', "5");
  await page.press('[aria-label="NUMA distance from node 0 to node 1"]', "Tab");
  assert.match(await page.textContent(".numa .refusal"), /11 to 254/);
  await page.fill('[aria-label="NUMA distance from node 0 to node 1"]', "32");
  await page.press('[aria-label="NUMA distance from node 0 to node 1"]', "Tab");
  await page.waitForFunction(() => !document.querySelector(".numa .refusal"));
  await shot(page, "02-topology-edited");
  // Removing the last core of an LLC is refused in that core's box.
  await page.click('[aria-label="Remove core 0 of node 0 LLC 1"]');
  await page.click('[aria-label="Remove node 1"]');
  await page.click('[aria-label="Remove core 0 of node 0 LLC 1"]');
  const r = await page.textContent('.core[data-core="0.1.0"] .refusal');
  assert.match(r, /at least one core/);
  // A bad compact spec is refused at the field; a good one replaces the drawing.
  await page.fill("#topo-spec", "2x0x8x2");
  assert.match(await page.textContent(".field.invalid .field-error"), /LLCs per node must be at least 1/);
  await page.fill("#topo-spec", "1x2x2x2");
  await page.waitForFunction(() => /8 CPUs/.test(document.querySelector("#machine-desc").textContent));
  assert.equal(await page.$(".field.invalid"), null);
});

test("topology import: lscpu -p pasted or picked as a file replaces the machine; garbage names its line and changes nothing", async () => {
  const lscpu = [
    "# The following is the parsable format, which can be fed to other",
    "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3",
    "0,0,0,0,,0,0,0,0", "1,1,0,0,,1,1,1,0", "2,0,0,0,,0,0,0,0", "3,1,0,0,,1,1,1,0", "",
  ].join("\n");
  await page.fill("#import-text", lscpu);
  await page.click("#import-paste");
  await page.waitForFunction(() => /· 4 CPUs/.test(document.querySelector("#machine-desc").textContent));
  assert.equal((await page.$$("section.machine .topo .cpu")).length, 4, "four CPUs drawn");
  assert.equal((await page.$$("section.machine .topo .core")).length, 2, "two cores drawn");
  assert.match(await page.textContent("#import-result"), /lscpu -p: 1 node, 1 LLC, 2 cores, 4 CPUs/);
  await page.locator("section.machine").screenshot({ path: path.join(OUT, "10-import-lscpu.png") });
  // Garbage: the message names the line, the machine stays.
  // The header is line 1, the bad core number is on line 3.
  await page.fill("#import-text", "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3\n0,0,0,0,,0,0,0,0\n1,zz,0,0,,0,0,0,0\n<b id=inj2>x</b>\n");
  await page.click("#import-paste");
  await page.waitForSelector("#import-error");
  assert.match(await page.textContent("#import-error"), /line 3/);
  assert.equal(await page.$("#inj2"), null, "pasted text is never HTML");
  assert.match(await page.textContent("#machine-desc"), /· 4 CPUs/);
  await page.locator("section.machine").screenshot({ path: path.join(OUT, "11-import-error.png") });
  // A file picked (as a drop would give it), with an offline CPU: its note is shown.
  const eight = ["# CPU,Core,Socket,Node,,L1d,L1i,L2,L3"];
  for (let c = 0; c < 8; c++) eight.push(`${c},${c % 4},0,0,,${c % 4},${c % 4},${c % 4},0`);
  eight.push("8,,,,,,,,"); // a CPU without a place (offline): left out with a note
  await page.setInputFiles("#import-file", { name: "lscpu.txt", mimeType: "text/plain", buffer: Buffer.from(eight.join("\n") + "\n") });
  await page.waitForFunction(() => /· 8 CPUs/.test(document.querySelector("#machine-desc").textContent));
  assert.match(await page.textContent("#import-result"), /lscpu\.txt/);
  assert.ok((await page.$$("#import-notes li")).length >= 1, "the notes are listed");
  await page.fill("#topo-spec", "1x2x2x2");
  await page.waitForFunction(() => /8 CPUs/.test(document.querySelector("#machine-desc").textContent));
});

test("kernels: a patch toggles and relabels the kernel", async () => {
  const cb = "#k0-sis-prev-idle";
  assert.equal(await page.isChecked(cb), true, "sis-prev-idle is merged in v4.15");
  await page.click(cb);
  await page.waitForFunction(() => /-sis-prev-idle/.test(document.querySelector('.kernel[data-kernel="0"] .kernel-label').textContent));
  assert.match(await page.textContent('.kernel[data-kernel="0"] .non-historical'), /merged in v4.15, here off/);
  assert.equal(await page.getAttribute('.kernel[data-kernel="0"] li.switch:has(#k0-sis-prev-idle) .patch-link', "href"), "seeds/001_b01dc0add771867f.txt");
  const patch = await page.request.get(new URL("seeds/001_b01dc0add771867f.txt", BASE).href);
  assert.equal(patch.status(), 200);
  assert.match(await patch.text(), /select_idle_sibling/);
  await page.click(cb);
  await page.waitForFunction(() => document.querySelector('.kernel[data-kernel="0"] .kernel-label').textContent.trim() === "v4.15");
});

test("a preset sweep runs in the worker: charts drawn, table filled, exports equal the native library's", async () => {
  await page.selectOption("#preset", "seed001");
  await page.waitForFunction(() => /westmere-1s/.test(document.querySelector("#machine-desc").textContent));
  await runSweep(page);
  const drawn = await page.$$eval('figure.chart canvas[data-drawn="true"]', (cs) =>
    cs.map((c) => {
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return seen.size;
    }));
  assert.equal(drawn.length, 4, "four report charts");
  for (const colours of drawn) assert.ok(colours > 3, `a chart canvas looks blank (${colours} colours)`);
  assert.ok(await page.$("#wasted-table"), "the wasted-core table is shown");
  firstTable = await page.textContent("#mmtests");
  assert.match(firstTable, /Hmean/);
  assert.match(firstTable, /prev-idle/);
  await shot(page, "03-sweep-results");
  await page.locator("section.results").screenshot({ path: path.join(OUT, "03b-results-section.png") });

  const json = await download(page, "#export-json");
  assert.match(json.name, /report\.json$/);
  firstReport = json.text;
  const exp = JSON.stringify(JSON.parse(json.text).experiment);
  const native = nativeReport(exp);
  assertSameReport(json.text, native, "the page's report JSON differs from Report::to_json() computed natively");
  const table = await download(page, "#export-table");
  if (cliParity("playground.test.js: the page against the CLI")) {
    // The command line, run on the very experiment the page exported, prints the same bytes.
    const file = path.join(OUT, "experiment.json");
    const cliJson = execFileSync(CLI, ["run", file, "--json", "--no-progress"], { encoding: "utf8", maxBuffer: 64 << 20 });
    assertSameReport(json.text + "\n", cliJson, "the page's report JSON differs from `schedsim run --json`");
    const cliTable = execFileSync(CLI, ["run", file, "--no-progress"], { encoding: "utf8", maxBuffer: 64 << 20 });
    assert.equal(table.text, cliTable, "the page's table differs from `schedsim run`");
  }
  const csv = await download(page, "#export-samples");
  assert.match(csv.text, /^kernel,label,clients,iteration,/);
  const counters = await download(page, "#export-counters");
  assert.match(counters.text, /^kernel,clients,summary,/);
  const svg = await download(page, '[aria-label="Export the throughput chart as SVG"]');
  assert.match(svg.text, /^<svg/);
  assert.match(svg.text, /prev-idle/);
  const png = await download(page, '[aria-label="Export the migrations chart as PNG"]');
  assert.ok(png.name.endsWith(".png"));
  // Copy table: the clipboard holds exactly the table text.
  await page.click("#copy-table");
  await page.waitForSelector(".table-head .status");
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, firstTable);
});

test("a long sweep shows progress and its first points, keeps input responsive and can be cancelled", async () => {
  await page.selectOption("#preset", "seed000");
  // One worker per CPU the browser reports (at most 8), adjustable.
  const cpus = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(Number(await page.inputValue("#workers")), Math.min(Math.max(cpus, 1), 8));
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.click("#run");
  await page.waitForSelector("#sweep-progress progress");
  // The seed001 results shown before are gone: no chart of another experiment stands
  // under the running sweep.
  assert.equal(await page.$('section.results:not([data-points-total="16"])'), null, "the seed001 results went when the seed000 sweep began");
  await page.waitForFunction(() => /\d+ of \d+ runs done/.test(document.querySelector("#sweep-progress").textContent), null, { timeout: 20_000 });
  // The results section comes with the first client count every kernel has a run at,
  // long before the sweep ends; the charts draw the partial report.
  await page.waitForSelector('section.results[data-points-total="16"]', { timeout: 120_000 });
  const done = Number(await page.getAttribute("section.results", "data-points-done"));
  const total = Number(await page.getAttribute("section.results", "data-points-total"));
  assert.equal(total, 16, "seed000: 2 kernels x 8 client counts");
  assert.ok(done >= 2 && done < total, `${done} of ${total} points`);
  assert.equal(await page.getAttribute("section.results", "data-wall-ms"), null, "no wall time before the end");
  assert.equal(await page.$("#mmtests"), null, "the table comes at the end");
  await page.waitForSelector('figure.chart canvas[data-drawn="true"]');
  assert.match(await page.textContent("#sweep-progress"), /runs done .* running .*left/);
  await page.locator("section.results").scrollIntoViewIfNeeded();
  await shot(page, "04a-sweep-partial-results");
  await page.locator(".runbar").scrollIntoViewIfNeeded();
  // The main thread answers while the worker computes.
  const t0 = Date.now();
  await page.fill("#exp-name", "typing while it runs");
  const lag = await page.evaluate(() => new Promise((res) => { const t = performance.now(); setTimeout(() => res(performance.now() - t), 0); }));
  assert.ok(Date.now() - t0 < 3000, "typing took too long");
  assert.ok(lag < 500, `event loop lag ${lag} ms`);
  await shot(page, "04-sweep-progress");
  await page.click("#cancel");
  await page.waitForSelector("#sweep-cancelled");
  assert.equal(await page.$("#sweep-progress"), null);
  // The partial results stay, saying the sweep stopped rather than promising more.
  assert.match(await page.textContent("section.results .result-meta"), /the sweep stopped with \d+ of 16 points begun/);
  await page.setViewportSize({ width: 1360, height: 900 });
});

test("live mode: step, play, pause; roles and the decision trace are shown", async () => {
  await page.selectOption("#preset", "demo");
  await page.click("#tab-live");
  await page.waitForSelector(".live-mode .topo .cpu");
  await page.keyboard.press("Space");
  await page.waitForSelector("#wakeup-summary");
  for (let i = 0; i < 4; i++) await page.keyboard.press("Space");
  // The status is redrawn after the key's handler returns: wait for it, never read it at once.
  await page.waitForFunction(() => /^5 wakeups stepped/.test(document.querySelector("#live-status").textContent), null, { timeout: 10_000 });
  assert.ok((await page.$$("#trace-steps li.step")).length >= 1, "the trace has steps");
  assert.ok(await page.$(".live-mode .cpu.chosen"), "the chosen CPU is marked");
  assert.ok(await page.$(".live-mode .cpu.prev"), "prev is marked");
  assert.match(await page.textContent("#trace-steps"), /select_task_rq_fair|wake_affine|select_idle_sibling|ttwu/);
  await shot(page, "05-live-stepped");
  await page.selectOption("#live-speed", "4"); // 256 wakeups/s
  await page.keyboard.press("p");
  await page.waitForFunction(() => Number(document.querySelector("#live-status").textContent.split(" ")[0]) > 60, null, { timeout: 15_000 });
  await page.keyboard.press("p");
  // A frame the worker was already making when the player paused still lands.
  await page.waitForSelector(".live-mode:not([data-busy])");
  const n1 = await page.textContent("#live-status");
  await page.waitForTimeout(300);
  assert.equal(await page.textContent("#live-status"), n1, "paused");
  const live = await page.$$('.live-mode figure.chart canvas[data-drawn="true"]');
  assert.equal(live.length, 2, "live charts drawn");
  await shot(page, "06-live-played");
  await page.keyboard.press("r");
  await page.waitForFunction(() => /^0 wakeups/.test(document.querySelector("#live-status").textContent));
});

test("wasted cores: the sweep lists moments; jump opens live mode there; Perfetto exports parse", async () => {
  await page.click("#tab-sweep");
  await page.selectOption("#preset", "demo");
  await page.fill("#wasted-threshold", "100"); // µs: the demo breaks the invariant at this threshold
  await runSweep(page);
  await page.waitForSelector("#wasted-table");
  const first = page.locator("#wasted button.jump:not([disabled])").first();
  await first.waitFor();
  const li = await first.evaluate((b) => b.parentElement.textContent);
  const at = Number(/at ([\d.]+) ms/.exec(li)[1]);
  await page.locator("#wasted").scrollIntoViewIfNeeded();
  await page.locator("#wasted").screenshot({ path: path.join(OUT, "12-wasted-results.png") });
  // Perfetto from the results: the first 5 ms after warm-up by default.
  const pr = await download(page, "#results-perfetto .pf-export");
  assert.match(pr.name, /\.perfetto\.json$/);
  assert.ok(Array.isArray(JSON.parse(pr.text).traceEvents) && JSON.parse(pr.text).traceEvents.length > 0, "traceEvents");
  await page.waitForSelector("#results-perfetto .pf-status");
  assert.match(await page.textContent("#results-perfetto .pf-status"), /Downloaded/);
  // The iteration asked is the one exported (the demo runs 2), named in the file.
  await page.fill("#results-perfetto .pf-iteration", "1");
  const pr1 = await download(page, "#results-perfetto .pf-export");
  assert.match(pr1.name, /-i1-/);
  assert.notEqual(pr1.text, pr.text, "iteration 1 is another run than iteration 0");
  await page.fill("#results-perfetto .pf-iteration", "2");
  await page.click("#results-perfetto .pf-export");
  assert.match(await page.textContent("#results-perfetto .pf-error"), /iteration: a whole number from 0 to 1/);
  await first.click();
  await page.waitForSelector("#live-jumped");
  const status = await page.textContent("#live-status");
  const now = Number(/([\d.]+) ms simulated/.exec(status)[1]);
  assert.ok(now <= at && now >= at - 0.1, `live mode at ${now} ms for a moment at ${at} ms`);
  await page.waitForSelector("#live-wasted-now");
  assert.ok(await page.$(".live-mode .cpu.wasted-idle"), "the idle CPU is marked");
  assert.ok(await page.$(".live-mode .cpu.wasted-busy"), "the busy CPU is marked");
  assert.ok(await page.$(".topo-legend .wasted-idle"), "legend entry");
  await page.waitForSelector("#live-wasted-list li");
  await shot(page, "13-live-wasted-jump");
  for (let i = 0; i < 3; i++) await page.keyboard.press("Space");
  const pl = await download(page, "#live-perfetto .pf-export");
  const ev = JSON.parse(pl.text).traceEvents;
  assert.ok(Array.isArray(ev) && ev.length > 0, "traceEvents");
  await page.locator("#live-perfetto").screenshot({ path: path.join(OUT, "14-live-perfetto.png") });
  await page.click("#tab-sweep");
  await page.fill("#wasted-threshold", "1000");
});

test("Copy link reproduces the same numbers in a fresh page", async () => {
  await page.click("#tab-sweep");
  await page.selectOption("#preset", "seed001");
  await page.click("#copy-link");
  await page.waitForSelector("#permalink");
  const url = await page.inputValue("#permalink");
  assert.ok(url.startsWith(BASE) && url.includes("#v1."), url);
  assert.ok(url.length < 2000, `link is ${url.length} characters`);
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(clip, url);
  const other = await fresh("link");
  await other.goto(url);
  await other.waitForSelector("#run");
  const notice = await other.$("#link-notice");
  assert.equal(notice && (await notice.textContent()), null);
  // A link to the Sweep view runs by itself: the recipient sees the results.
  await other.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]"), null, { timeout: 120_000, polling: 100 });
  assert.equal(await other.textContent("#mmtests"), firstTable);
  const again = await download(other, "#export-json");
  assertSameReport(again.text, firstReport, "the same link gave different numbers");
  await other.context().close();
});

test("broken, future and hostile links show a message and load the default", async () => {
  const cases = [
    ["#v1.eJzLSM3JyQcABiwCFQ", /damaged|not valid/],
    ["#v1." + "A".repeat(40), /damaged/],
    ["#v7.AAAA", /newer playground/],
    ["#hello", /not a playground link/],
  ];
  const p = await fresh("broken");
  for (const [frag, re] of cases) {
    await p.goto("about:blank"); // a fresh load each time, not a hashchange
    await p.goto(BASE + frag);
    await p.waitForSelector("#link-notice");
    assert.match(await p.textContent("#link-notice"), re);
    assert.match(await p.textContent("#machine-desc"), /teaching/, "the default experiment is loaded");
  }
  await shot(p, "07-broken-link");
  // A truncated real link.
  const good = await page.inputValue("#permalink");
  await p.goto("about:blank");
  await p.goto(good.slice(0, good.length - 9));
  await p.waitForSelector("#link-notice");
  await p.goto("about:blank");
  // Text from a link is never HTML.
  const exp = JSON.parse(fs.readFileSync(path.join(OUT, "experiment.json"), "utf8"));
  exp.name = '<img src=x onerror="window.__pwned=1"><b id=inj>bold</b>';
  exp.kernels[0].name = '<script>window.__pwned=2</script>';
  await p.goto(BASE + link({ experiment: exp, view: { tab: "sweep" } }));
  await p.waitForSelector("#exp-name");
  const notice = await p.$("#link-notice");
  assert.equal(notice && (await notice.textContent()), null);
  assert.equal(await p.inputValue("#exp-name"), exp.name);
  assert.equal(await p.$("#inj"), null);
  assert.equal(await p.evaluate(() => window.__pwned), undefined);
  await p.context().close();
});

test("classroom: presenter mode, dark theme, one-click guided run", async () => {
  await page.click("#tab-classroom");
  await page.waitForSelector("article.guide");
  // One card per seed preset, the replay card (a bundled trace), the script exercise and EEVDF's.
  assert.equal((await page.$$("article.guide")).length, 10);
  await page.keyboard.press("f");
  await page.selectOption("#theme", "dark");
  await page.waitForFunction(() => document.documentElement.dataset.presenter === "on" && document.documentElement.dataset.theme === "dark");
  await shot(page, "08-classroom-presenter-dark");
  await page.click('[aria-label="Run seed003-pipe"]');
  await page.waitForFunction(() => document.querySelector("section.results[data-wall-ms]") && !document.querySelector("#cancel") && /seed003-pipe/.test(document.querySelector("#mmtests").textContent), null, { timeout: 120_000 });
  await shot(page, "09-guided-run-presenter");
  await page.keyboard.press("f");
  await page.selectOption("#theme", "light");
});

test("budgets: each seed's built-in sweep in the page against native", { skip: !BUDGETS }, async () => {
  // Per preset: the page on one worker against native code on one thread (the
  // WebAssembly/native ratio), then the page on every core the browser reports, with
  // the time from Run to the first chart (section.results appears with the first
  // finished point), against the CLI with one thread per CPU.
  const setWorkers = async (n) => {
    await page.fill("#workers", String(n));
    await page.press("#workers", "Enter");
    await page.locator("#workers").blur();
  };
  const cores = await page.evaluate(() => navigator.hardwareConcurrency || 1);
  const rows = [];
  for (const preset of ["seed001", "seed000", "seed002", "seed003-pipe", "seed003-hackbench", "seed003-tbench", "seed004"]) {
    await page.click("#tab-sweep");
    await page.selectOption("#preset", preset);
    await setWorkers(1);
    const page1 = await runSweep(page, 600_000);
    const nat = JSON.parse(execFileSync(NATIVE, ["bench", preset], { encoding: "utf8" }).trim());
    await setWorkers(cores);
    // The last run's results stay up until the new run's first point replaces them
    // (that point has no data-wall-ms yet, or, if it finished at once, another one).
    const before = await page.getAttribute("section.results", "data-wall-ms");
    const t0 = Date.now();
    await page.click("#run");
    await page.waitForFunction((old) => {
      const r = document.querySelector("section.results");
      return r && (!r.hasAttribute("data-wall-ms") || r.getAttribute("data-wall-ms") !== old);
    }, before, { timeout: 600_000, polling: "raf" });
    const first = Date.now() - t0;
    await page.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]"), null, { timeout: 600_000, polling: 100 });
    const pageAll = Number(await page.getAttribute("section.results", "data-wall-ms"));
    let cliAll = null;
    if (cliParity("playground.test.js: the page against the CLI")) {
      const c0 = process.hrtime.bigint();
      execFileSync(CLI, ["run", preset, "--json", "--jobs", String(cores)], { maxBuffer: 64 << 20, stdio: ["ignore", "ignore", "ignore"] });
      cliAll = Number(process.hrtime.bigint() - c0) / 1e6;
    }
    const row = {
      preset,
      page_1_worker_ms: page1,
      native_1_thread_ms: nat.wall_ms,
      ratio: +(page1 / nat.wall_ms).toFixed(2),
      workers: cores,
      page_all_ms: pageAll,
      first_chart_ms: first,
      cli_all_ms: cliAll === null ? null : +cliAll.toFixed(1),
    };
    rows.push(row);
    console.log(`# ${preset}: page ${page1.toFixed(0)} ms on 1 worker, native ${nat.wall_ms.toFixed(0)} ms on 1 thread; ` +
      `page ${pageAll.toFixed(0)} ms on ${cores} workers (first chart ${first} ms), CLI ${cliAll === null ? "n/a" : cliAll.toFixed(0)} ms on ${cores} threads`);
  }
  fs.writeFileSync(path.join(OUT, "sweep-budgets.json"), JSON.stringify(rows, null, 1));
});

test("no request left the origin, no page error, no CSP violation", () => {
  assert.deepEqual(problems, []);
});
