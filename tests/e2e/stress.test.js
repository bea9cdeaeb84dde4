// The page under stress, in Chromium: two tabs sweeping at once, Run clicked ten times
// fast, Cancel at each phase, Back and Forward during a sweep, a worker that dies
// mid-run, a 1,024-CPU machine on 8 workers, and the main thread's longest task (Long
// Tasks API) during every built-in sweep on 8 workers, printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { BASE, OUT, problems, newPage, openPage } from "./helpers.js";

// The main thread's longest task (Long Tasks API) during each built-in sweep on 8
// workers: the goal, LONG_TASK_GOAL_MS (100 ms), is printed, and
// LONG_TASK_BOUND_MS, twice it, asserted (SCHEDSIM_LONG_TASK_MS overrides it). A task's time is wall time, the machine's as much as the page's: a
// browser cannot give its workers a lower priority than the page, and other programs
// take the page's cores. So the pool runs as many runs at once as the page stays
// responsive with (`model::sweep::Throttle`: from the device's cores, one fewer at a late
// heartbeat, one more after 2 s of on-time ones, never past the cores), and the bound is asserted when nothing
// but the browser kept the machine busy during the sweep: other work under
// OTHER_LOAD_MAX cores, from /proc (the machine's busy and stolen time less Chromium's
// processes'). Otherwise it is printed with the other load, and a tab frozen for
// FROZEN_MS fails anyway. Until 2026-12-07 every legend label of a chart was measured by
// a <span> appended to the page (Plotters' web font), a forced layout each, 0.2-1.2 ms
// apiece and once 62 ms of CPU in one task; charts now measure text on their canvas.
// Measured 2026-12-07 on the 2-core machine: no long task in any sweep but seed004's
// and seed000's (53-62 ms) when quiet; with two `yes` loops beside it, 85-141 ms. CI's
// run of 2026-12-07, with the spans, saw 155 ms on seed004; a later one, six tasks of up to
// 125 ms in seed000 only, the first sweep long enough for the throttle (then) to grow to a
// third worker on 2 cores. It stops at the cores since, and charts no longer force a
// layout in their render (up to four a redraw). After both, 2026-12-08, quiet (other work
// 0.01-0.04 cores): the worst task of a run was 67, 68, 134 (seed000) and 136 ms
// (seed004), two runs of four over the goal, from a timer callback doing about 65 ms of
// CPU that 2 busy workers on 2 cores stretch to twice that; not yet found. So the goal
// is not asserted until it holds; twice it is, which the spans (155 ms) and 8 workers
// at once (100-250 ms) each broke.
const LONG_TASK_GOAL_MS = 100;
const LONG_TASK_BOUND_MS = Number(process.env.SCHEDSIM_LONG_TASK_MS || 2 * LONG_TASK_GOAL_MS);
const OTHER_LOAD_MAX = 0.3;
const FROZEN_MS = 1000;

// The machine's busy CPU time (stolen time included: a host's other guests) and
// Chromium's processes', in seconds, from Linux's /proc (null elsewhere). USER_HZ is
// 100 on every Linux architecture.
function cpuSeconds() {
  try {
    const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const busy = (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / 100; // user nice system irq softirq steal
    let browser = 0;
    for (const d of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(d)) continue;
      let st;
      try { st = fs.readFileSync(`/proc/${d}/stat`, "utf8"); } catch { continue; }
      const comm = st.slice(st.indexOf("(") + 1, st.lastIndexOf(")"));
      if (!/chrom/i.test(comm)) continue;
      const rest = st.slice(st.lastIndexOf(")") + 2).split(" "); // from field 3, the state
      browser += (Number(rest[11]) + Number(rest[12])) / 100; // utime, stime
    }
    return { busy, browser };
  } catch {
    return null;
  }
}

async function setWorkers(p, n) {
  await p.fill("#workers", String(n));
  await p.press("#workers", "Enter");
  await p.locator("#workers").blur();
}

// Waits for the end of the sweep running now (or just asked for): its results complete.
async function sweepEnds(p, timeout = 240_000) {
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]")
    && !document.querySelector("#sweep-progress"), null, { timeout, polling: 100 });
  const failed = await p.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
}

// Waits until the running sweep has finished a run or more.
const someRunsDone = (p) => p.waitForFunction(() => /[1-9]\d* of \d+ runs done/.test(document.querySelector("#sweep-progress")?.textContent ?? ""),
  null, { timeout: 60_000, polling: 50 });

// Starts recording the main thread's long tasks (50 ms and over, the API's floor).
async function watchLongTasks(p) {
  await p.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, ms: e.duration }); })
      .observe({ type: "longtask", buffered: false });
  });
}
const takeLongTasks = (p) => p.evaluate(() => window.__long.splice(0));

function link(shared) {
  return "#v1." + zlib.deflateSync(Buffer.from(JSON.stringify(shared)), { level: 9 }).toString("base64url");
}

let a;
let seed001Table;

test("Run clicked ten times fast: one sweep, the right table", async () => {
  a = await newPage("stress-a");
  await openPage(a);
  await sweepEnds(a); // the demo of the first load
  await a.selectOption("#preset", "seed001");
  for (let i = 0; i < 10; i++) await a.click("#run", { delay: 0, noWaitAfter: true });
  await sweepEnds(a);
  seed001Table = await a.textContent("#mmtests");
  // The same as one calm click.
  await a.click("#run");
  await sweepEnds(a);
  assert.equal(await a.textContent("#mmtests"), seed001Table);
  assert.match(await a.textContent("section.results .result-meta"), /6 runs in/);
});

test("two tabs sweep at once and agree", async () => {
  const b = await a.context().newPage();
  b.on("pageerror", (e) => problems.push(`stress-b: page error: ${e.message}`));
  await openPage(b);
  await sweepEnds(b);
  await b.selectOption("#preset", "seed001");
  await a.click("#run");
  await b.click("#run");
  await Promise.all([sweepEnds(a), sweepEnds(b)]);
  assert.equal(await a.textContent("#mmtests"), seed001Table);
  assert.equal(await b.textContent("#mmtests"), seed001Table);
  await b.close();
});

test("Cancel while queued, while running and while the last runs land", async () => {
  await a.selectOption("#preset", "seed003-tbench");
  // Queued: before any worker has answered.
  await a.click("#run");
  await a.click("#cancel");
  await a.waitForSelector("#sweep-cancelled");
  // Running: runs done, more to come.
  await a.click("#run");
  await someRunsDone(a);
  await a.click("#cancel");
  await a.waitForSelector("#sweep-cancelled");
  assert.match(await a.textContent("section.results .result-meta"), /the sweep stopped/);
  // Drawing: the charts draw each landed run; cancel as the points fill in.
  await a.click("#run");
  await a.waitForFunction(() => {
    const r = document.querySelector("section.results");
    return r && Number(r.dataset.pointsDone) >= Number(r.dataset.pointsTotal) - 2;
  }, null, { timeout: 240_000, polling: 20 });
  const cancel = await a.$("#cancel");
  if (cancel) {
    await cancel.click().catch(() => {}); // the sweep may end between the look and the click
  }
  await a.waitForFunction(() => !document.querySelector("#cancel"));
  // Whatever the phase, the page runs the next sweep to the end.
  await a.selectOption("#preset", "seed001");
  await a.click("#run");
  await sweepEnds(a);
  assert.equal(await a.textContent("#mmtests"), seed001Table);
});

test("Back and Forward during a sweep", async () => {
  await a.selectOption("#preset", "seed003-tbench");
  await a.click("#run");
  await a.waitForSelector("#sweep-progress");
  await a.click("#tab-live");
  await a.waitForSelector("#live-status");
  await a.goBack();
  await a.waitForSelector("#run");
  await a.goForward();
  await a.waitForSelector("#live-status");
  await a.goBack();
  await a.waitForSelector("#run");
  // The sweep ran on (or was stopped, saying so); either way Run works and ends right.
  await a.waitForFunction(() => !document.querySelector("#cancel") || document.querySelector("#sweep-progress"), null, { timeout: 240_000 });
  await a.selectOption("#preset", "seed001");
  await a.click("#run");
  await sweepEnds(a);
  assert.equal(await a.textContent("#mmtests"), seed001Table);
});

test("a worker that dies mid-run: the page names the failed run, keeps the others, and reruns it", async () => {
  await a.selectOption("#preset", "seed001");
  await setWorkers(a, 2);
  await a.click("#run");
  await sweepEnds(a); // the pool's two workers are up, and kept for the next sweep
  // One of them throws on the second run it is given after this, as a wasm trap (out
  // of memory, a panic's abort) would: an uncaught error, the worker's `error` event.
  let armed = 0;
  for (const w of a.workers()) {
    const ok = await w.evaluate(() => {
      if (!self.onmessage) return false;
      const orig = self.onmessage;
      let runs = 0;
      self.onmessage = (e) => {
        if (e.data && (e.data.type === "Run" || (e.data instanceof Map && e.data.get("type") === "Run")) && ++runs === 2) throw new Error("killed by the test");
        return orig.call(self, e);
      };
      return true;
    }).catch(() => false);
    if (ok) { armed += 1; break; }
  }
  assert.equal(armed, 1, "a worker to kill");
  await a.click("#run");
  await a.waitForSelector("#sweep-runs-failed", { timeout: 120_000 });
  const msg = await a.textContent("#sweep-runs-failed");
  await a.screenshot({ path: path.join(OUT, "stress-runs-failed.png") });
  assert.match(msg, /^1 run failed; the runs that finished are shown/, msg);
  assert.match(msg, /(v3\.8|prev-idle) at 1 client\/server pairs?, iteration \d: a simulation worker stopped: .*killed by the test/, msg);
  assert.match(await a.textContent("section.results .result-meta"), /the sweep stopped with 2 of 2 points begun/);
  await a.waitForSelector('figure.chart canvas[data-drawn="true"]');
  // Rerun: a new worker runs the failed run; the report is the whole sweep's.
  await a.click("#rerun-failed");
  await sweepEnds(a);
  assert.equal(await a.textContent("#mmtests"), seed001Table);
});

test("a 1,024-CPU machine at 8,192 clients on 8 workers: asked or run, never a dead tab", async () => {
  const p = await newPage("big");
  await openPage(p);
  await sweepEnds(p);
  // The demo with a 4x8x16x2 machine and 8,192 clients, 8 iterations of 20 ms.
  const shared = {
    experiment: {
      version: 1, name: "big", machine: { topology: "4x8x16x2" }, workload: { kind: "tbench" },
      clients: [8192], iterations: 8, duration_ms: 20, seed: 1, kernels: [{ name: "a", preset: "v6.6" }],
    },
  };
  await p.goto(BASE + link(shared));
  await p.waitForSelector(".topo .cpu", { state: "attached", timeout: 60_000 }); // folded past 512 CPUs
  await setWorkers(p, 8);
  const asked = await p.$("#run-question");
  if (asked) {
    assert.match(await asked.textContent(), /CPU-(seconds|minutes)/);
    await p.click("#run-question-first");
  }
  await watchLongTasks(p);
  await p.waitForSelector("#sweep-progress", { timeout: 10_000 }).catch(() => {});
  // The tab answers while it runs.
  const lag = await p.evaluate(() => new Promise((res) => { const t = performance.now(); setTimeout(() => res(performance.now() - t), 0); }));
  assert.ok(lag < 1000, `event loop lag ${lag} ms`);
  await sweepEnds(p, 600_000);
  const mem = await p.evaluate(() => performance.memory ? Math.round(performance.memory.usedJSHeapSize / 1e6) : null);
  const worst = Math.max(0, ...(await takeLongTasks(p)).map((t) => t.ms));
  console.log(`# 1,024 CPUs x 8,192 clients on 8 workers: done; main-thread JS heap ${mem} MB, longest task ${worst.toFixed(0)} ms`);
  await p.context().close();
});

test("the main thread during every built-in sweep on 8 workers: the longest task, printed", async () => {
  const p = await newPage("longtasks", { viewport: { width: 1366, height: 768 } });
  await openPage(p);
  await sweepEnds(p);
  await setWorkers(p, 8);
  const names = await p.$$eval("#preset option", (os) => os.map((o) => o.value).filter((v) => v));
  const rows = [];
  for (const name of names) {
    if (/^replay-/.test(name)) continue; // the classroom fetches their traces: not a sweep from the list alone
    await p.selectOption("#preset", name);
    await watchLongTasks(p);
    const cpu0 = cpuSeconds();
    const t0 = Date.now();
    await p.click("#run");
    await p.waitForSelector("#cancel", { timeout: 5_000 }).catch(() => {});
    await sweepEnds(p, 900_000);
    await p.waitForTimeout(300); // the last draw's task is reported after it ends
    const wall_ms = Date.now() - t0;
    const cpu1 = cpuSeconds();
    const other_load = cpu0 && cpu1 ? Math.max(0, (cpu1.busy - cpu0.busy) - (cpu1.browser - cpu0.browser)) / (wall_ms / 1000) : null;
    const tasks = await takeLongTasks(p);
    const worst = Math.max(0, ...tasks.map((t) => t.ms));
    rows.push({ name, wall_ms, long_tasks: tasks.length, worst_ms: Math.round(worst),
      other_load: other_load === null ? null : Number(other_load.toFixed(2)) });
    console.log(`# ${name}: ${tasks.length} long tasks, the longest ${worst.toFixed(0)} ms; sweep ${wall_ms / 1000} s; ` +
      `other work ${other_load === null ? "unknown" : other_load.toFixed(2) + " cores"}`);
  }
  fs.writeFileSync(path.join(OUT, "long-tasks.json"), JSON.stringify(rows, null, 1));
  const worst = rows.reduce((m, r) => (r.worst_ms > m.worst_ms ? r : m), rows[0]);
  console.log(`# worst main-thread task: ${worst.worst_ms} ms (${worst.name}); goal ${LONG_TASK_GOAL_MS} ms, bound ${LONG_TASK_BOUND_MS} ms ` +
    `when other work stays under ${OTHER_LOAD_MAX} cores`);
  for (const r of rows) {
    assert.ok(r.worst_ms <= FROZEN_MS, `${r.name}: the tab froze for ${r.worst_ms} ms`);
    if (r.other_load !== null && r.other_load < OTHER_LOAD_MAX) {
      assert.ok(r.worst_ms <= LONG_TASK_BOUND_MS, `${r.name}: the longest main-thread task was ${r.worst_ms} ms`);
    } else {
      console.log(`# ${r.name}: the ${LONG_TASK_BOUND_MS} ms bound not asserted: other work took ${r.other_load ?? "unknown"} cores`);
    }
  }
  await p.context().close();
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
