// The page opened without a link shows a finished experiment: the demo runs at once in
// the workers, and its headline chart and table are on the first screen at 1366x768
// (no scrolling, no click), beside the inputs from 1600 px, and within the first two
// screens of a 390x844 phone. The table is the CLI's `schedsim run demo`, byte for byte.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { BASE, CLI, cliParity, OUT, problems, newPage } from "./helpers.js";

// Opens the bare page at `viewport` and waits for the demo's result, drawn.
async function openBare(label, viewport) {
  const p = await newPage(label, { viewport });
  await p.goto(BASE);
  await p.waitForSelector('section.results[data-wall-ms] .headline figure.chart canvas[data-drawn="true"]', { timeout: 60_000 });
  await p.waitForSelector("#mmtests");
  return p;
}

// Where the headline chart, the table and the two columns are, in page coordinates.
function layout(p) {
  return p.evaluate(() => {
    const box = (sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right };
    };
    return {
      scrollY, vh: innerHeight, vw: innerWidth,
      chart: box(".headline figure.chart"), table: box("#mmtests"),
      inputs: box(".sweep-inputs"), outputs: box(".sweep-outputs"),
      run: box(".runbar"),
    };
  });
}

const tableLine = 18; // px: one line of the table at its .8rem, line-height 1.35

test("1366x768: the demo's headline chart and table on the first screen, no click", async () => {
  const p = await openBare("1366", { width: 1366, height: 768 });
  const l = await layout(p);
  await p.screenshot({ path: path.join(OUT, "first-load-1366x768.png") });
  assert.equal(l.scrollY, 0, "the page stays at its top");
  assert.ok(l.chart.top >= 0 && l.chart.bottom <= l.vh, `the headline chart within the screen: ${JSON.stringify(l.chart)} of ${l.vh}`);
  // The table's title row and its throughput rows (Hmean 1..8): about 8 lines.
  assert.ok(l.table.top + 8 * tableLine <= l.vh, `the table's first rows on the screen: ${JSON.stringify(l.table)} of ${l.vh}`);
  assert.ok(l.table.left >= l.chart.right - 1, "the table beside the chart");
  assert.ok(l.run.bottom <= l.vh + 1, "the Run bar on the screen");
  const text = await p.textContent("#mmtests");
  assert.match(text, /Hmean\s+8/);
  if (cliParity("first-load.test.js: the page against the CLI")) {
    const cli = execFileSync(CLI, ["run", "demo"], { encoding: "utf8" });
    assert.equal(text.trim(), cli.trim(), "the page's demo table is the CLI's");
  }
  await p.context().close();
});

test("1920x1080: inputs and results side by side", async () => {
  const p = await openBare("1920", { width: 1920, height: 1080 });
  const l = await layout(p);
  await p.screenshot({ path: path.join(OUT, "first-load-1920x1080.png") });
  assert.ok(l.inputs.right <= l.outputs.left + 1, `inputs left of the results: ${JSON.stringify([l.inputs, l.outputs])}`);
  assert.ok(Math.abs(l.inputs.top - l.outputs.top) < 2, "the two columns start at the same height");
  assert.ok(l.chart.bottom <= l.vh && l.table.top + 8 * tableLine <= l.vh, `chart and table on the first screen: ${JSON.stringify(l)}`);
  await p.context().close();
});

test("390x844: the headline chart within the first two screens; nothing wider than the phone", async () => {
  const p = await openBare("390", { width: 390, height: 844 });
  const l = await layout(p);
  await p.screenshot({ path: path.join(OUT, "first-load-390x844.png") });
  await p.screenshot({ path: path.join(OUT, "first-load-390x844-full.png"), fullPage: true });
  assert.ok(l.chart.bottom <= 2 * l.vh, `the headline chart ends at ${l.chart.bottom} px, two screens are ${2 * l.vh}`);
  const width = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  await p.context().close();
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
