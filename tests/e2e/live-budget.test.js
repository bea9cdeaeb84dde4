// End-to-end test of live mode on a machine where nothing sleeps (issue 29 A.1): seed
// 002's memcache at 8,192 workers keeps every CPU busy, so no task is woken for the
// whole run. A step there must give the page back control after its budget of events,
// say that no wakeup came (with Continue and Stop), and Play must yield to the browser
// between budgets. Before the budget, a step ran to the next wakeup or the end of the
// run in one task and the tab froze. Screenshots of the notice at 1366x768 and 390x844
// go to SCHEDSIM_OUT.
// Also: a live step at 1,024 CPUs (issue 31, item 12), its longest main-thread task printed.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { BASE, OUT, problems, newPage, openPage } from "./helpers.js";

// The seed002 preset at 8,192 clients: 82 million requests a second for 8,192 workers on
// 96 CPUs, so every worker always has a request queued and none ever sleeps.
const CPU_BOUND = {
  version: 1,
  name: "seed002-8192",
  machine: { preset: "cascadelake-2s" },
  workload: { kind: "memcache", rps_per_worker: 10000, service_ns: 20000, ws_bytes: 131072 },
  clients: [8192],
  iterations: 1,
  duration_ms: 300,
  warmup_ms: 30,
  seed: 1,
  kernels: [
    { name: "v5.13", preset: "v5.13" },
    { name: "skip-pending", preset: "v5.13", overrides: { "newidle-skip-pending": true } },
  ],
  shard_size: 6,
  wasted_core_threshold_ns: 1000000,
};

// A link made the page's way (zlib + base64url).
function link(shared) {
  return "#v1." + zlib.deflateSync(Buffer.from(JSON.stringify(shared)), { level: 9 }).toString("base64url");
}

// Starts recording, in the page, the longest gap between animation frames: how long
// the main thread was held at a time.
const watchFrames = (p) =>
  p.evaluate(() => {
    window.__gapMax = 0;
    let last = performance.now();
    const tick = (t) => {
      window.__gapMax = Math.max(window.__gapMax, t - last);
      last = t;
      window.__frames = requestAnimationFrame(tick);
    };
    window.__frames = requestAnimationFrame(tick);
  });
const longestGap = (p) => p.evaluate(() => window.__gapMax);

const STALL = /^No wakeup within ([\d,]+) events \(([\d.]+) ms simulated\)$/;
const stallEvents = async (p) => Number(STALL.exec(await p.textContent("#live-stall-text"))[1].replaceAll(",", ""));
const simulatedMs = async (p) => Number(/([\d.]+) ms simulated/.exec(await p.textContent("#live-status"))[1]);

let page;

before(async () => {
  page = await newPage("live-budget");
});

test("a live link to a machine where nothing sleeps: the page stays responsive and says no wakeup came", async () => {
  await openPage(page, link({ experiment: CPU_BOUND, view: { tab: "live" } }));
  await page.waitForSelector(".live-mode .topo .cpu");
  // The session starts in its worker (8,192 tasks forked): the status says so until then.
  await page.waitForFunction(() => /^0 wakeups stepped/.test(document.querySelector("#live-status").textContent), null, { timeout: 60_000 });

  // One step: it comes back after its budget, with the notice and both buttons.
  await watchFrames(page);
  await page.click("#live-step");
  await page.waitForSelector("#live-stall", { timeout: 20_000 });
  assert.match(await page.textContent("#live-stall-text"), STALL);
  const first = await stallEvents(page);
  assert.ok(first > 0 && first <= 200_000, `one step ran ${first} events`);
  assert.ok(await page.isEnabled("#live-continue"), "Continue is offered");
  assert.ok(await page.isEnabled("#live-stop"), "Stop is offered");
  assert.match(await page.textContent("#live-status"), /^0 wakeups stepped/);
  const stepGap = await longestGap(page);
  console.log(`# one bounded step held the main thread for at most ${stepGap.toFixed(0)} ms`);
  assert.ok(stepGap < 1000, `a step held the page for ${stepGap} ms`);
  // The page answers while the notice is up.
  const t0 = Date.now();
  await page.evaluate(() => document.title);
  assert.ok(Date.now() - t0 < 500, "the page answers");

  for (const [w, h] of [[1366, 768], [390, 844]]) {
    await page.setViewportSize({ width: w, height: h });
    await page.waitForTimeout(150);
    await page.locator("#live-stall").scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, `30-live-no-wakeup-${w}x${h}.png`) });
  }
  await page.setViewportSize({ width: 1366, height: 768 });

  // Continue goes on looking where the last step stopped: more events, more time.
  const ms0 = await simulatedMs(page);
  await page.click("#live-continue");
  await page.waitForFunction((n) => {
    const m = /within ([\d,]+) events/.exec(document.querySelector("#live-stall-text")?.textContent ?? "");
    return m && Number(m[1].replaceAll(",", "")) > n;
  }, first, { timeout: 20_000 });
  assert.ok((await simulatedMs(page)) > ms0, "Continue ran on");

  // Stop: the notice goes, the run stays where it got to.
  const ms1 = await simulatedMs(page);
  await page.click("#live-stop");
  await page.waitForFunction(() => !document.querySelector("#live-stall"));
  assert.equal(await simulatedMs(page), ms1);
});

test("playing a machine where nothing sleeps yields to the browser between budgets", async () => {
  await page.keyboard.press("r");
  await page.waitForFunction(() => /^0 wakeups stepped · 0\.000 ms/.test(document.querySelector("#live-status").textContent));
  await page.selectOption("#live-speed", "6"); // max
  await watchFrames(page);
  await page.keyboard.press("p");
  // Playing, and saying no wakeup came yet; Continue is not needed while it plays.
  await page.waitForFunction(() => document.querySelector("#live-play").getAttribute("aria-pressed") === "true" &&
    document.querySelector("#live-stall") && document.querySelector("#live-continue").disabled, null, { timeout: 20_000, polling: 10 });
  // A task queued while it plays runs soon.
  const t0 = Date.now();
  await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  assert.ok(Date.now() - t0 < 500, "a task queued while playing ran soon");
  // Stop pauses the player (unless it has reached the end of the run by now).
  await page.click("#live-stop", { timeout: 2_000 }).catch(() => {});
  await page.waitForFunction(() => document.querySelector("#live-play").getAttribute("aria-pressed") === "false", null, { timeout: 20_000 });
  await page.waitForSelector(".live-mode:not([data-busy])", { timeout: 20_000 });
  const gap = await longestGap(page);
  console.log(`# while playing, the longest gap between frames was ${gap.toFixed(0)} ms`);
  assert.ok(gap < 1000, `playing held the page for ${gap} ms`);
  const s = await page.textContent("#live-status");
  await page.waitForTimeout(300);
  assert.equal(await page.textContent("#live-status"), s, "stopped");
});

// Issue 31, item 12: a live step at 1,024 CPUs took 0.4–0.75 s of the main thread (the
// machine's 1,024 cells and the timeline's 1,024 lanes redrawn at every step, and the
// step simulated there). Each step is measured as the longest main-thread task (Long
// Tasks API, 50 ms and over) from the click until the step's status is shown and the
// page has painted. Since the session runs in a worker, the main thread only draws the
// frame the worker sends: measured 2026-12-06 on the 2-core machine with two builds
// running beside it, the first step (it starts the run: 512 CPUs take a task, all 1,024
// cells change) 79 ms, every later one under 50 ms (none reported). The aim is 100 ms;
// the first step's bound leaves room for a shared machine's noise (a task's time is wall
// time) and still fails the 164-308 ms it took with the simulation on the main thread.
const STEP_TASK_MS = 100;
const FIRST_STEP_TASK_MS = 150;
const BIG_LIVE = {
  experiment: {
    version: 1, name: "big-live", machine: { topology: "4x8x16x2" }, workload: { kind: "tbench" },
    clients: [512], iterations: 1, duration_ms: 50, seed: 1,
    kernels: [{ name: "v6.6", preset: "v6.6" }, { name: "v5.15", preset: "v5.15" }],
  },
  view: { tab: "live" },
};

test("a live step at 1,024 CPUs: the longest main-thread task of each step, printed and bounded", async () => {
  const p = await newPage("live-1024");
  await p.goto(BASE + link(BIG_LIVE));
  await p.waitForSelector(".live-mode .topo .cpu", { timeout: 60_000 });
  await p.waitForFunction(() => /^0 wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 60_000 });
  assert.equal(await p.locator(".live-mode .topo .cpu[data-cpu]").count(), 1024);
  await p.waitForTimeout(500);
  await p.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: "longtask" });
  });
  const steps = [];
  for (let i = 0; i < 12; i++) {
    await p.evaluate(() => window.__long.splice(0));
    const t0 = Date.now();
    await p.click("#live-step");
    await p.waitForFunction((n) => document.querySelector("#live-status").textContent.startsWith(`${n} wakeups`), i + 1, { polling: 10 });
    // Two frames: the step's render has been painted, and its long task reported.
    await p.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50)))));
    const tasks = await p.evaluate(() => window.__long.splice(0));
    steps.push({ step: i + 1, longest_ms: Math.round(Math.max(0, ...tasks)), click_to_status_ms: Date.now() - t0 });
  }
  assert.match(await p.textContent("#live-status"), /^12 wakeups stepped/);
  // The timeline draws the lanes in view; scrolled to the last CPU, its lane is there.
  const scroll = p.locator(".live-mode .tl-scroll");
  await scroll.evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await p.waitForSelector('.live-mode .tl-lane[data-cpu="1023"]', { state: "attached", timeout: 5_000 });
  fs.writeFileSync(path.join(OUT, "live-1024-steps.json"), JSON.stringify(steps, null, 1));
  const [first, ...later] = steps;
  const worst = later.reduce((m, s) => (s.longest_ms > m.longest_ms ? s : m), later[0]);
  console.log(`# a live step at 1,024 CPUs: the first ${first.longest_ms} ms, the longest after it ${worst.longest_ms} ms ` +
    `(step ${worst.step}); per step ${steps.map((s) => s.longest_ms).join(", ")} ms (0: none over 50 ms)`);
  assert.ok(first.longest_ms <= FIRST_STEP_TASK_MS, `the first live step at 1,024 CPUs held the main thread ${first.longest_ms} ms: ${JSON.stringify(steps)}`);
  assert.ok(worst.longest_ms <= STEP_TASK_MS, `a live step at 1,024 CPUs held the main thread ${worst.longest_ms} ms: ${JSON.stringify(steps)}`);
  await p.context().close();
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
