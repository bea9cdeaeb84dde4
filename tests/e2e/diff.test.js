// End-to-end test of the Diff view: seed 001 loaded, the Diff tab runs kernel A (v3.8)
// with kernel B (sis-prev-idle) asked at every wakeup, in a worker; the counts match
// `schedsim diff --json` of the CLI, stepping moves to the next difference, both traces
// are shown and both choices are marked on the drawing. Screenshots at 1366x768 and
// 390x844 go to SCHEDSIM_OUT. Run by scripts/test-web.sh (see playground.test.js for
// the environment).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { CLI, cliParity, OUT, problems, freshPage } from "./helpers.js";

const fresh = (viewport) => freshPage("diff", { viewport });

async function openSeed001Diff(p) {
  await p.selectOption("#preset", "seed001");
  await p.click("#tab-diff");
  await p.waitForSelector("#diff-sentence", { timeout: 120_000 });
}

const text = async (p, sel) => (await p.textContent(sel)).replace(/\s+/g, " ").trim();

test("the Diff view steps through seed 001's differences and agrees with the CLI", async () => {
  const p = await fresh({ width: 1366, height: 768 });
  await openSeed001Diff(p);
  const summary = await text(p, "#diff-summary");
  const m = summary.match(/at (\d+) of (\d+) compared wakeups/);
  assert.ok(m, summary);
  const [differ, compared] = [Number(m[1]), Number(m[2])];
  assert.ok(differ > 0 && differ <= compared, summary);
  // The counts table adds up to the compared wakeups; "same CPU" is the rest.
  const rows = await p.$$eval("#diff-counts tr", (trs) => trs.slice(1).map((tr) => Number(tr.children[1].textContent)));
  assert.equal(rows.reduce((a, b) => a + b, 0), compared);
  assert.equal(rows[0], compared - differ);
  if (cliParity("diff.test.js: the page against the CLI")) {
    const j = JSON.parse(execFileSync(CLI, ["diff", "seed001", "--count", "1000", "--details", "0", "--json"], { encoding: "utf8" }));
    assert.equal(j.differ, differ, "the page and the CLI count the same differences");
    assert.equal(j.compared, compared);
    assert.deepEqual([j.relation.same_cpu, j.relation.smt_sibling, j.relation.same_llc, j.relation.cross_llc, j.relation.cross_node], rows);
  }
  assert.match(await text(p, "#diff-pos"), /^difference 1 of \d+ · wakeup #\d+/);
  assert.ok(await p.isDisabled("#diff-prev"));
  // The sentence names both CPUs; the drawing marks them (★ A, ◆ B) and they differ.
  const checkMarks = async () => {
    const s = await text(p, "#diff-sentence");
    const a = Number(s.match(/A \(v3\.8\) chose CPU (\d+)/)[1]);
    const b = Number(s.match(/B \(prev-idle\) would choose CPU (\d+)/)[1]);
    assert.notEqual(a, b, s);
    assert.equal(await p.getAttribute(".diff-view .cpu.chosen", "data-cpu"), String(a));
    assert.equal(await p.getAttribute(".diff-view .cpu.chosen-b", "data-cpu"), String(b));
    assert.match(await text(p, "#diff-trace-a"), new RegExp(`-> CPU ${a}|→ CPU ${a}`));
    assert.match(await text(p, "#diff-trace-b"), /idle_cpu\(prev=\d+\)=1/);
    return [a, b];
  };
  const first = await checkMarks();
  const wakeup1 = await text(p, "#diff-pos");
  await p.click("#diff-next");
  await p.waitForFunction((w) => !document.querySelector("#diff-pos").textContent.includes(w.split(" · ")[1]), wakeup1);
  assert.match(await text(p, "#diff-pos"), /^difference 2 of /);
  assert.ok(!(await p.isDisabled("#diff-prev")));
  const second = await checkMarks();
  assert.notDeepEqual(first, second, "the next difference is another wakeup, with other CPUs");
  // The arrow keys step too.
  await p.keyboard.press("ArrowRight");
  await p.waitForFunction(() => document.querySelector("#diff-pos").textContent.startsWith("difference 3 of"));
  await p.keyboard.press("ArrowLeft");
  await p.waitForFunction(() => document.querySelector("#diff-pos").textContent.startsWith("difference 2 of"));
  await p.screenshot({ path: path.join(OUT, "diff-1366x768.png") });
  await p.locator("#diff-traces, .diff-traces").first().scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "diff-traces-1366x768.png") });
  // The list links to the differences kept in full.
  await p.click("#diff-list li:nth-child(5) button");
  await p.waitForFunction(() => document.querySelector("#diff-pos").textContent.startsWith("difference 5 of"));
  await p.context().close();
  assert.deepEqual(problems, []);
});

test("the Diff view at 390 px wide, and with one kernel", async () => {
  const p = await fresh({ width: 390, height: 844 });
  await openSeed001Diff(p);
  const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
  await p.screenshot({ path: path.join(OUT, "diff-390x844.png") });
  await p.locator(".diff-traces").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "diff-traces-390x844.png") });
  // Remove the second kernel: the view says a diff needs two.
  await p.click("#tab-sweep");
  await p.click('.kernel[data-kernel="1"] button[aria-label^="Remove"]');
  await p.click("#tab-diff");
  await p.waitForSelector("#diff-one-kernel");
  await p.context().close();
  assert.deepEqual(problems, []);
});
