// End-to-end tests of issue 31 items 7-12 (11: the results' patch counts and the kernel
// card's note on a switch that cannot act) and issue 30's "Run this on a cluster": names
// that do not mislead, a typed topology that is not replaced without asking, the
// run-size guard marking its fields, the cluster commands for the page's experiment.
// Run by scripts/test-web.sh; screenshots at 1366x768 go to SCHEDSIM_OUT.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { OUT, problems, download, newPage, openPage } from "./helpers.js";

let page;

before(async () => {
  page = await newPage("guards", { clipboard: true });
  await openPage(page);
});

const shot = (p, name) => p.screenshot({ path: path.join(OUT, `${name}.png`) });

async function runSweep(p, timeoutMs = 240_000) {
  await p.click("#run");
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results #mmtests"), null, { timeout: timeoutMs, polling: 100 });
}

async function small(p) {
  await p.fill("#clients", "1 2");
  await p.fill("#iterations", "1");
  await p.fill("#duration", "20");
  await p.fill("#warmup", "2");
}

test("item 7: no invented names; names the table cuts are given whole; exports named from what changed", async () => {
  await page.selectOption("#preset", "demo");
  await page.selectOption('[aria-label="Kernel A version"]', "v5.15");
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v5.15");
  assert.equal(await page.getAttribute("#k0-name", "aria-invalid"), "true");
  assert.match(await page.textContent("#k0-name-err"), /kernel B is also called "v5\.15": type a name for one of them/);
  assert.equal(await page.isDisabled("#run"), true);
  // The name fields and their words in view (the card is taller than the screen).
  await page.$eval("#k0-name", (e) => e.scrollIntoView({ block: "center" }));
  await shot(page, "70-names-no-invented-suffix");
  // A switch makes A different, and its name follows: the long label.
  await page.click("#k0-wake-affine-prev-rfc");
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v5.15+wake-affine-prev-rfc");
  assert.equal(await page.$("#k0-name-err"), null);
  await small(page);
  await runSweep(page);
  const table = await page.textContent("#mmtests");
  assert.match(table, /v5\.15\+wake-affine-pre(?!v)/, "the mmtests layout cuts at 21 characters");
  assert.equal((await page.textContent("#table-key")).trim(), "v5.15+wake-affine-pre, v5.15+wake- in the tables is v5.15+wake-affine-prev-rfc");
  await page.locator("#table-key").scrollIntoViewIfNeeded();
  await shot(page, "71-names-table-key");
  const { name } = await download(page, "#export-samples");
  assert.equal(name, "schedsim-demo-v5-15-wake-affine-prev-rfc-vs-v5-15-c1-2-20ms-x1-custom-samples.csv");
  const chart = await download(page, '[aria-label="Export the throughput chart as SVG"]');
  assert.match(chart.name, /^schedsim-demo-v5-15-wake-affine-prev-rfc-vs-v5-15-c1-2-.*-throughput\.svg$/);
  // The built-in experiment unchanged keeps its name.
  await page.selectOption("#preset", "demo");
  await small(page);
  await runSweep(page);
  assert.equal((await download(page, "#export-table")).name, "schedsim-demo-c1-2-20ms-x1-custom-table.txt");
});

test("item 8: a typed topology is said at the machine and not replaced without asking", async () => {
  await page.selectOption("#preset", "demo");
  assert.equal(await page.$("#costs-clash"), null);
  await page.fill("#topo-spec", "2x1x16x2");
  await page.waitForSelector("#costs-clash");
  assert.match(await page.textContent("#costs-clash"), /^These 64 CPUs run with the costs of teaching \(/);
  await page.selectOption("#machine-preset", "cascadelake-2s");
  await page.waitForSelector("#machine-question");
  assert.match(await page.textContent("#machine-question"), /cascadelake-2s has its own topology \(2x1x20x2, 80 CPUs\)\. Use it in place of your 2x1x16x2/);
  // Nothing changed yet.
  assert.equal(await page.inputValue("#topo-spec"), "2x1x16x2");
  assert.equal(await page.inputValue("#machine-preset"), "teaching");
  await page.locator("#machine-question").scrollIntoViewIfNeeded();
  await shot(page, "72-machine-asks");
  await page.click("#machine-keep-mine");
  await page.waitForFunction(() => /2x1x16x2 with cascadelake-2s costs/.test(document.querySelector("#machine-desc").textContent));
  assert.match(await page.textContent("#costs-clash"), /costs of cascadelake-2s/);
  // Asked again, and this time the preset's topology is taken.
  await page.selectOption("#machine-preset", "teaching");
  await page.click("#machine-use-preset");
  await page.waitForFunction(() => /^teaching/.test(document.querySelector("#machine-desc").textContent));
  assert.equal(await page.$("#costs-clash"), null);
  // With no typed topology, a preset replaces the machine at once.
  await page.selectOption("#machine-preset", "cascadelake-2s");
  await page.waitForFunction(() => /80 CPUs/.test(document.querySelector("#machine-desc").textContent));
  assert.equal(await page.$("#machine-question"), null);
});

test("item 9: 5,000 tbench pairs run; a run over the cap marks its fields", async () => {
  await page.selectOption("#preset", "seed003-tbench");
  await page.fill("#clients", "5000");
  await page.fill("#duration", "200");
  await page.waitForFunction(() => !document.querySelector("#run").disabled);
  assert.equal(await page.$("#exp-invalid"), null, "not refused");
  await page.fill("#duration", "600000");
  await page.waitForSelector("#exp-invalid");
  assert.match(await page.textContent("#exp-invalid"), /upper estimate/);
  for (const id of ["#duration", "#clients"]) {
    assert.equal(await page.getAttribute(id, "aria-invalid"), "true", id);
    assert.match(await page.textContent(`${id}-err`), /^too large a run: 5000 client\/server pairs for 600000 ms/);
  }
  assert.equal(await page.isDisabled("#run"), true);
  await page.locator("#duration").scrollIntoViewIfNeeded();
  await shot(page, "73-run-size-fields");
  await page.fill("#duration", "200");
  await page.waitForFunction(() => !document.querySelector("#run").disabled && !document.querySelector("#duration").getAttribute("aria-invalid"));
});

test("cluster: the commands under a sweep's results and in the question before a large one", async () => {
  await page.selectOption("#preset", "demo");
  await small(page);
  await runSweep(page);
  await page.click("#cluster > summary");
  // 2 kernels x 2 client counts x 1 iteration: 4 runs, one shard each.
  assert.match(await page.textContent("#cluster-summary"), /^4 runs; this page estimates at most \d+ s of CPU time here, so about \d+ s per shard over 4 shards/);
  const file = "schedsim-demo-c1-2-20ms-x1-custom.json";
  assert.equal((await page.textContent("#cluster-slurm")).split("\n")[0], `jobid=$(sbatch --parsable --array=1-4 docs/cluster/slurm.sbatch ${file} parts)`);
  assert.match(await page.textContent("#cluster-parallel"), new RegExp(`^seq 4 \\| parallel --halt now,fail=1 schedsim run ${file} --shard \\{\\}/4 --jobs 1 --out parts/part-\\{\\}\\.jsonl\\nschedsim merge parts/part-\\*\\.jsonl$`));
  assert.ok((await page.textContent("#cluster-kubernetes")).includes("'s/^\\(  completions\\|  parallelism\\): 32$/\\1: 4/'"));
  await page.fill("#cluster-shards", "2");
  await page.press("#cluster-shards", "Enter");
  await page.waitForFunction(() => /--array=1-2 /.test(document.querySelector("#cluster-slurm").textContent));
  const { name, text } = await download(page, "#cluster-download");
  assert.equal(name, file);
  const exp = JSON.parse(text);
  assert.deepEqual([exp.name, exp.clients, exp.iterations, exp.duration_ms], ["demo", [1, 2], 1, 20]);
  await page.locator("#cluster").scrollIntoViewIfNeeded();
  await shot(page, "74-cluster-under-results");

  // A large sweep opened from a link waits for a click; the question has the panel open.
  await page.selectOption("#preset", "seed004");
  await page.fill("#iterations", "100");
  await page.fill("#clients", Array.from({ length: 32 }, (_, i) => i + 1).join(" "));
  await page.click("#tab-sweep");
  await page.click("#copy-link");
  await page.waitForSelector("#permalink");
  const link = await page.inputValue("#permalink");
  const other = await newPage("guards-question");
  await other.goto(link);
  await other.waitForSelector("#run-question");
  await other.waitForSelector("#run-question #cluster[open]");
  assert.match(await other.textContent("#run-question #cluster-summary"), /^9600 runs; /);
  assert.match(await other.textContent("#run-question #cluster-slurm"), /--array=1-32 docs\/cluster\/slurm\.sbatch schedsim-seed004-c1-32-x100\.json parts/);
  await shot(other, "75-cluster-in-question");
  await other.close();
});

test("item 10: a reload during or after a sweep keeps its finished runs and runs only the rest", async () => {
  const p = await newPage("guards-reload");
  await openPage(p);
  await p.selectOption("#preset", "demo");
  await p.fill("#clients", "1 2 4 8");
  await p.fill("#iterations", "4");
  await p.fill("#duration", "400");
  await p.fill("#workers", "1");
  await p.dispatchEvent("#workers", "change");
  await p.click("#run");
  await p.waitForFunction(() => Number(document.querySelector("section.results")?.dataset.pointsDone || 0) >= 2, null, { timeout: 120_000 });
  await p.reload();
  await p.waitForSelector("#restored");
  const said = await p.textContent("#restored");
  const m = said.match(/Kept from before the reload: (\d+) of this sweep's 32 runs, shown below as partial results\./);
  assert.ok(m, said);
  const kept = Number(m[1]);
  assert.ok(kept >= 2 && kept < 32, said);
  assert.ok(await p.$("section.results .charts"), "the partial results are shown");
  await shot(p, "76-reload-kept");
  await p.click("#restored-run");
  await p.waitForFunction(() => document.querySelector("section.results #mmtests"), null, { timeout: 240_000, polling: 200 });
  assert.equal(await p.$("#restored"), null);
  // After the sweep: a reload shows the whole result again, without running.
  await p.reload();
  await p.waitForSelector("#restored");
  assert.equal((await p.textContent("#restored")).trim(), "Kept from before the reload: all 32 runs of this sweep, shown below.");
  await p.waitForSelector("section.results #mmtests");
  assert.equal(await p.$("#cancel"), null, "nothing runs");
  await p.close();
});

test("item 11: a patch switched on whose branch never ran is said in the results", async () => {
  await page.selectOption("#preset", "demo");
  await page.click("#k1-wake-affine-prev-rfc");
  await small(page);
  await runSweep(page);
  assert.match(await page.textContent("#result-notes"), /v5\.15\+wake-affine-prev-rfc: wake-affine-prev-rfc is on, but the patched branch was taken 0 times in this sweep/);
  assert.equal(await page.textContent("#patch-counts"), "Patched branches taken over all runs: v5.15+wake-affine-prev-rfc: wake-affine-prev-rfc 0 times.");
  await page.locator("#result-notes").scrollIntoViewIfNeeded();
  await shot(page, "77-patch-never-taken");
  // Seed 003's patch (not yet in v5.14) with 8 tbench pairs is taken.
  await page.selectOption("#preset", "demo");
  await page.selectOption('[aria-label="Kernel A version"]', "v5.14");
  await page.click("#k0-recent-used-prev");
  await small(page);
  await page.fill("#clients", "8");
  await page.fill("#duration", "40");
  await runSweep(page);
  assert.match(await page.textContent("#patch-counts"), /^Patched branches taken over all runs: v5\.14\+recent-used-prev: recent-used-prev [1-9]\d* times\.$/);
});

test("item 11: a switch that cannot act on its kernel's version says why beside it", async () => {
  await page.selectOption("#preset", "demo");
  const note = (id) => page.locator("li.switch", { has: page.locator(`#${id}`) }).locator(".sw-reach");
  // The case: on v5.15 the RFC's normal-wakeup rule is already there.
  assert.match(await note("k1-wake-affine-prev-rfc").textContent(), /^acts only in part: in v5\.15 an idle prev is already kept \(d8fcb81f1acf, v5\.10\): only a wakeup made on an idle CPU/);
  assert.deepEqual(await note("k1-wake-affine-prev-rfc").evaluate((e) => [...e.classList]), ["sw-reach", "partly"]);
  // On v4.15 it acts; seed 003's recent_used_cpu is not there yet.
  assert.equal(await note("k0-wake-affine-prev-rfc").count(), 0);
  assert.equal(await note("k0-recent-used-prev").textContent(), "changes nothing in v4.15: recent_used_cpu came with 32e839dda3ba (v4.17), after this version");
  // Another switch can decide first: v5.15 has no SIS_UTIL, so SIS_PROP is read; the
  // overload flag is read only with SHARED_RUNQ on.
  assert.equal(await note("k1-SIS_PROP").count(), 0);
  assert.match(await note("k1-shared-runq-overload").textContent(), /while SHARED_RUNQ is off/);
  await page.click("#k1-SHARED_RUNQ");
  await page.waitForFunction(() => !document.querySelector('li.switch:has(#k1-shared-runq-overload) .sw-reach'));
  // v3.8 has none of wake_affine()'s v4.14 rewrite: its WA_ features and patches say so.
  await page.selectOption('[aria-label="Kernel A version"]', "v3.8");
  await page.waitForFunction(() => document.querySelector("li.switch:has(#k0-WA_IDLE) .sw-reach"));
  assert.match(await note("k0-WA_IDLE").textContent(), /^changes nothing in v3\.8: wake_affine_idle\(\) and wake_affine_weight\(\) came with d153b153446f \(v4\.14\)/);
  assert.match(await note("k0-wake-affine-prev").textContent(), /d153b153446f/);
  assert.equal(await note("k0-sis-prev-idle").count(), 0);
  await page.$eval("#k0-WA_IDLE", (e) => e.scrollIntoView({ block: "start" }));
  await page.evaluate(() => scrollBy(0, -120));
  await shot(page, "78-switch-cannot-act");
});

test("item 12: v3.8's wake_affine reads as yes/no, recent wakeups are numbered once", async () => {
  await page.selectOption("#preset", "seed001");
  await page.click("#tab-live");
  await page.waitForSelector("#live-step");
  for (let i = 0; i < 6; i++) await page.click("#live-step");
  await page.waitForSelector("ul.recent li");
  const results = await page.$$eval("aside.trace .step", (els) => els
    .filter((e) => e.querySelector(".fn").textContent === "wake_affine (v3.8)")
    .map((e) => e.querySelector(".result").textContent));
  assert.ok(results.length > 0, "a v3.8 wake_affine step");
  for (const r of results) assert.match(r, /^(yes \(1\): wake affine|no \(0\): stay near prev)$/);
  assert.equal(await page.$("ol.recent"), null);
  const first = await page.textContent("ul.recent li");
  assert.match(first, /^#\d+ /);
  assert.equal(await page.$eval("ul.recent", (e) => getComputedStyle(e).listStyleType), "none");
  await page.click("#tab-sweep");
  // 1,024 CPUs: the machine is folded, the kernels stay near the top.
  await page.selectOption("#preset", "demo");
  await page.fill("#topo-spec", "4x2x64x2");
  await page.waitForSelector("#topo-fold");
  assert.equal(await page.$eval("#topo-fold", (e) => e.open), false);
  assert.match(await page.textContent("#topo-fold > summary"), /^The machine's 1024 CPUs, folded/);
  // Measured from the machine's heading: on first load the demo's results sit above
  // the inputs, so where the form starts depends on them.
  const y = await page.$eval("#kernels-h", (e) =>
    e.getBoundingClientRect().top - document.querySelector("#machine-h").getBoundingClientRect().top);
  assert.ok(y < 1800, `Kernels ${y} px below the machine's heading`);
  await page.click("#topo-fold > summary");
  assert.equal(await page.$eval("#topo-fold", (e) => e.open), true);
});

test("no page errors", () => {
  assert.deepEqual(problems, []);
});
