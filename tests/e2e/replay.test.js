// End-to-end tests of replaying a real scheduler trace in the page: a trace imported
// through the file input (in the worker, with its summary), the sweep of its copies,
// the observed/simulated table with the CLI's numbers, a broken file's message, links
// that carry a small replay whole, and the classroom card's bundled trace. Run by
// scripts/test-web.sh (see helpers.js for the environment). Screenshots at 1366x768
// and 390x844 go to SCHEDSIM_OUT.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BASE, CLI, cliParity, OUT, problems, freshPage, newPage } from "./helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAKE = path.join(ROOT, "traces/make.perf.txt.gz");

async function importTrace(p, file) {
  await p.setInputFiles("#replay-file", file);
  await p.waitForSelector("#replay-summary, #replay-error", { timeout: 60_000 });
}

async function runSweep(p, timeoutMs = 240_000) {
  await p.click("#run");
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results"), null, { timeout: timeoutMs, polling: 100 });
  const failed = await p.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
}

test("make.perf.txt.gz imported through the file input replays, and the table has the CLI's numbers", async () => {
  const p = await freshPage("replay", { foreign: true });
  await p.selectOption("#preset", "demo");
  await importTrace(p, MAKE);
  const summary = await p.textContent("#replay-summary");
  assert.match(summary, /Imported make\.perf\.txt\.gz \(sha256 14764b05dde7…\)/);
  assert.match(summary, /3205 lines, 2 CPUs/, "the importer's summary lines");
  assert.match(summary, /The workload is now the replay of make\.perf\.txt\.gz \(86 tasks\)/, "86 tasks: the distinct pids of traces/make.perf.counts");
  assert.equal(await p.inputValue("#workload-kind"), "replay");
  assert.match(await p.textContent(".metric-note"), /replay throughput/);
  assert.match(await p.textContent("#replay-link-note"), /Links carry this replay whole/);
  // Two copies at most: a quick sweep.
  await p.fill("#clients", "1 2");
  await p.fill("#iterations", "1");
  await runSweep(p);
  await p.waitForSelector("#replay-table", { timeout: 120_000 });
  const rows = await p.$$eval("#replay-table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
  const names = rows.map((r) => r[0]);
  for (const n of ["wakeups", "migrations / 1000 wakeups", "run delay p99 (us)", "CPU busy share", "same CPU as the machine", "replay throughput (x rec.)", "finished the trace"]) {
    assert.ok(names.includes(n), `row ${n} in ${names}`);
  }
  assert.deepEqual(rows.find((r) => r[0] === "wakeups").slice(0, 2), ["wakeups", "442"], "observed wakeups as the trace has them");
  assert.match(await p.textContent(".replay-compare"), /may have been running other work too/);
  await p.locator("#replay-table").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "replay-table-1366x768.png") });
  await p.locator("#replay-summary").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "replay-import-1366x768.png") });

  if (cliParity("replay.test.js: the page against the CLI")) {
    // The same trace, machine, kernels and seed in the CLI: the same table, and the
    // JSON's numbers are the page's.
    const seed = await p.inputValue("#seed");
    const args = ["replay", MAKE, "--machine", "teaching", "--kernel", "v4.15=v4.15", "--kernel", "v5.15=v5.15", "--seed", seed];
    const text = execFileSync(CLI, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    const pageText = await p.$eval("#replay-table-text", (e) => e.textContent);
    assert.ok(text.includes(pageText), `the CLI prints the page's table:\n${text}\n---\n${pageText}`);
    const j = JSON.parse(execFileSync(CLI, [...args, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    const tput = rows.find((r) => r[0] === "replay throughput (x rec.)");
    assert.deepEqual(tput.slice(2), j.simulated.map((s) => s.replay_throughput.toFixed(2)));
    assert.equal(rows.find((r) => r[0] === "wakeups")[2], String(j.simulated[0].wakeups));
  }

  // A link carries this replay whole: opened elsewhere it runs as it is.
  await p.click("#tab-sweep");
  const frag = new URL(p.url()).hash;
  const q = await newPage("replay-link", { foreign: true });
  await q.goto(BASE + frag);
  await q.waitForSelector(".topo .cpu");
  assert.equal(await q.inputValue("#workload-kind"), "replay");
  assert.equal(await q.$("#replay-wanted"), null, "no file is asked for");
  await q.context().close();

  await p.setViewportSize({ width: 390, height: 844 });
  await p.waitForTimeout(200);
  await p.locator("#replay-table").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "replay-table-390x844.png") });
  await p.locator("#replay-drop").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "replay-import-390x844.png") });
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  await p.context().close();
  assert.deepEqual(problems, []);
});

test("a cut or random file gives the importer's message and changes nothing", async () => {
  const p = await freshPage("replay-bad", { foreign: true });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "replay-"));
  const junk = path.join(dir, "junk.txt");
  fs.writeFileSync(junk, "hello\nthis is not a trace\n\u0000\u0001\n");
  const before = await p.inputValue("#workload-kind");
  await importTrace(p, junk);
  assert.match(await p.textContent("#replay-error"), /Could not replay junk\.txt: trace junk\.txt/);
  assert.equal(await p.inputValue("#workload-kind"), before);
  const cut = path.join(dir, "cut.txt");
  const text = execFileSync("gzip", ["-dc", MAKE]).toString("utf8");
  fs.writeFileSync(cut, text.slice(0, 700) + "\n<cpu>  garbage line 12.5: sched:sched_switch: nonsense\n");
  await importTrace(p, cut);
  const msg = (await p.textContent("#replay-summary, #replay-error")) || "";
  assert.ok(msg.length > 0);
  await p.context().close();
  assert.deepEqual(problems, []);
});

test("the classroom's replay card imports the bundled trace from this origin and runs it", async () => {
  const p = await freshPage("replay-card", { foreign: true });
  await p.click("#tab-classroom");
  await p.click("#guide-replay-run");
  await p.waitForSelector("#replay-summary", { timeout: 60_000 });
  assert.equal(await p.inputValue("#workload-kind"), "replay");
  assert.match(await p.textContent(".metric-note"), /replay throughput/);
  await p.waitForSelector("#replay-table", { timeout: 300_000 });
  await p.context().close();
  assert.deepEqual(problems, []);
});

test("a link to a large replay names its trace, asks for the file and refuses another", async () => {
  const p = await freshPage("replay-ref", { foreign: true });
  await importTrace(p, path.join(ROOT, "traces/dbench.perf.txt.gz"));
  assert.match(await p.textContent("#replay-link-note"), /more than a link carries/);
  await p.waitForTimeout(800); // the address bar follows after its debounce
  const frag = new URL(p.url()).hash;
  assert.ok(frag.length < 4000, `a reference link is short (${frag.length} characters)`);
  await p.context().close();

  const q = await newPage("replay-ref-open", { foreign: true });
  await q.goto(BASE + frag);
  await q.waitForSelector(".topo .cpu");
  assert.match(await q.textContent("#replay-wanted"), /replays the trace dbench\.perf\.txt\.gz \(sha256 [0-9a-f]{12}…\)/);
  assert.match(await q.textContent("#exp-invalid"), /this experiment replays trace dbench\.perf\.txt\.gz \(sha256 [0-9a-f]{12}…\): load that trace file/);
  assert.ok(await q.isDisabled("#run"), "Run waits for the file");
  // Another trace is refused, and says which one the link wants.
  await importTrace(q, MAKE);
  assert.match(await q.textContent("#replay-error"), /make\.perf\.txt\.gz \(sha256 14764b05dde7…\) is not the trace this experiment replays: it replays dbench\.perf\.txt\.gz/);
  assert.ok(await q.$("#replay-wanted"), "still asking for the link's trace");
  await q.locator("#replay-h").scrollIntoViewIfNeeded();
  await q.screenshot({ path: path.join(OUT, "replay-refused-1366x768.png") });
  // The right one fills the programs in.
  await importTrace(q, path.join(ROOT, "traces/dbench.perf.txt.gz"));
  await q.waitForFunction(() => !document.querySelector("#replay-wanted") && !document.querySelector("#exp-invalid"));
  assert.match(await q.textContent("#replay-summary"), /has the SHA-256 the link names/);
  assert.ok(!(await q.isDisabled("#run")));
  await q.locator("#replay-summary").scrollIntoViewIfNeeded();
  await q.screenshot({ path: path.join(OUT, "replay-reference-1366x768.png") });
  await q.context().close();
  // The opened link's run request met the missing file: said in the page, not a crash.
  problems.splice(0, problems.length, ...problems.filter((s) => !/^replay-ref-open: .*cannot run/.test(s)));
  assert.deepEqual(problems, []);
});

test("a second trace beside the first: the page's two-trace table is the CLI's replay A --vs B", async () => {
  const PIPE = path.join(ROOT, "traces/pipe.perf.txt.gz");
  for (const [label, opts] of [["1366x768", {}], ["390", { phone: true, viewport: { width: 390, height: 844 } }]]) {
    const p = await freshPage(`trace-vs-${label}`, { foreign: true, ...opts });
    assert.equal(await p.$("#vs-file"), null, "no second trace before a first");
    await importTrace(p, MAKE);
    assert.match(await p.textContent("#vs-drop"), /A is make\.perf\.txt\.gz/);
    // A broken B says so and leaves A as it is.
    const bad = path.join(os.tmpdir(), "schedsim-vs-bad.txt");
    fs.writeFileSync(bad, "not a trace\n".repeat(10));
    await p.setInputFiles("#vs-file", bad);
    await p.waitForSelector("#vs-error", { timeout: 60_000 });
    assert.match(await p.textContent("#vs-error"), /Could not compare with schedsim-vs-bad\.txt: /);
    await p.setInputFiles("#vs-file", PIPE);
    await p.waitForSelector("#vs-table", { timeout: 60_000 });
    const rows = await p.$$eval("#vs-overall tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
    const names = await p.$$eval("#vs-names tbody tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
    assert.ok(names.some((r) => r[0] === "sched-pipe" && r[1] === "-" && r[3] === "B only"), "a task in B only is listed with a dash for A");
    await p.locator("#vs-table").scrollIntoViewIfNeeded();
    await p.screenshot({ path: path.join(OUT, `trace-vs-${label}.png`) });
    if (cliParity("replay.test.js: the page against the CLI")) {
      const text = execFileSync(CLI, ["replay", MAKE, "--vs", PIPE], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      assert.equal(await p.$eval("#vs-text", (e) => e.textContent), text, "the page's text is the CLI's, byte for byte");
      const j = JSON.parse(execFileSync(CLI, ["replay", MAKE, "--vs", PIPE, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
      assert.deepEqual(rows.find((r) => r[0] === "wakeups").slice(1, 3), [String(j.a.wakeups), String(j.b.wakeups)]);
      assert.equal(names.length, j.names.length, "one row per task name the CLI lists");
    }
    assert.deepEqual(problems.filter((s) => s.startsWith(`trace-vs-${label}`)), [], "no console errors");
  }
});

// The budgets' trace import: a synthetic 32 MiB perf script text (examples/import_speed's
// generator) imported in the page's worker, from the file input to the summary (the
// file read, its trip to the worker, the import), beside the native import of the same
// file; written to import-budgets.json, which the budgets report prints.
test("budgets: a 32 MiB trace imported in the page against native", { skip: process.env.SCHEDSIM_BUDGETS === "0" }, async () => {
  const SPEED = process.env.SCHEDSIM_IMPORT_SPEED;
  if (!SPEED) throw new Error("set SCHEDSIM_IMPORT_SPEED (scripts/test-web.sh does) or SCHEDSIM_BUDGETS=0");
  const file = path.join(OUT, "synthetic-32m.perf.txt");
  execFileSync(SPEED, ["--write", file, "32"]);
  const bytes = fs.statSync(file).size;
  const native = JSON.parse(execFileSync(SPEED, ["--json", file], { encoding: "utf8" }).trim());
  const ms = [];
  for (let i = 0; i < 3; i++) {
    const p = await freshPage(`import-budget-${i}`, { foreign: true });
    // The first load's sweep ends first: the import is timed, not the import beside it.
    await p.waitForFunction(() => document.querySelector("section.results[data-wall-ms]") && !document.querySelector("#sweep-progress"),
      null, { timeout: 120_000, polling: 50 });
    const t0 = Date.now();
    await p.setInputFiles("#replay-file", file);
    await p.waitForSelector("#replay-summary, #replay-error", { timeout: 120_000 });
    ms.push(Date.now() - t0);
    assert.equal(await p.$("#replay-error"), null, await p.textContent("body"));
    await p.close();
  }
  ms.sort((a, b) => a - b);
  const row = {
    bytes,
    page_ms: ms[1],
    page_mb_per_s: +(bytes / 1e6 / (ms[1] / 1e3)).toFixed(1),
    native_ms: native.wall_ms,
    native_mb_per_s: native.mb_per_s,
    ratio: +(ms[1] / native.wall_ms).toFixed(2),
  };
  console.log(`# import of ${(bytes / 1e6).toFixed(1)} MB: page ${row.page_ms} ms (${row.page_mb_per_s} MB/s), native ${row.native_ms} ms (${row.native_mb_per_s} MB/s), ${row.ratio}x`);
  fs.writeFileSync(path.join(OUT, "import-budgets.json"), JSON.stringify(row, null, 1));
  fs.rmSync(file);
});
