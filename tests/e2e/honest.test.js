// End-to-end tests that the playground shows the answer and never a misleading one:
// kernel names follow their configuration, charts do not invent differences, empty
// measurement windows are said, refused fields block Run, Copy link confirms where the
// user looks, broken links are explained. Run by scripts/test-web.sh (see
// playground.test.js for the environment). Screenshots at 1366x768, 1920x1080 and
// 390x844 go to SCHEDSIM_OUT.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { OUT, problems, download, newPage, openPage } from "./helpers.js";

const VIEWPORTS = [[1366, 768], [1920, 1080], [390, 844]];

const fresh = (label, viewport) => newPage(label, { viewport, clipboard: true });

let page;

before(async () => {
  page = await fresh("honest");
  await openPage(page);
});

// The same scene at the three sizes; `prepare` brings the part to look at into view.
async function shots(p, name, prepare) {
  const size = p.viewportSize();
  for (const [w, h] of VIEWPORTS) {
    await p.setViewportSize({ width: w, height: h });
    await p.waitForTimeout(150); // the layout and the canvases settle
    if (prepare) await prepare(p);
    await p.screenshot({ path: path.join(OUT, `${name}-${w}x${h}.png`) });
  }
  await p.setViewportSize(size);
}

async function runSweep(p, timeoutMs = 240_000) {
  await p.click("#run");
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results"), null, { timeout: timeoutMs, polling: 100 });
  const failed = await p.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
}

const nameOf = (p, k) => p.inputValue(`#k${k}-name`);
const labelOf = async (p, k) => (await p.textContent(`.kernel[data-kernel="${k}"] .kernel-label code`)).trim();
const warningsOf = async (p, k) => {
  const el = await p.$(`.kernel[data-kernel="${k}"] .kernel-warnings`);
  return el ? el.textContent() : "";
};

test("a kernel's name follows its version; identical kernels and no-op switches are said", async () => {
  await page.selectOption("#preset", "demo");
  assert.equal(await nameOf(page, 0), "v4.15");
  await page.selectOption('[aria-label="Kernel A version"]', "v5.15");
  // B is already called v5.15: A is called so too (no invented "v5.15 (2)"), its name
  // field is refused until a name is typed, and the panel says why comparing them is
  // pointless.
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v5.15");
  assert.match(await page.textContent("#k0-name-err"), /kernel B is also called "v5\.15": type a name for one of them/);
  assert.equal(await page.isDisabled("#run"), true);
  assert.match(await warningsOf(page, 0), /identical to kernel B \(v5\.15\)/);
  assert.match(await warningsOf(page, 1), /identical to kernel A \(v5\.15\)/);
  await shots(page, "20-kernels-identical", (p) => p.locator("section.panel:has(#kernels-h)").scrollIntoViewIfNeeded());
  // Typed here (the form links made before kept; it still follows the configuration).
  await page.fill("#k0-name", "v5.15 (2)");
  await page.press("#k0-name", "Tab");
  await page.waitForFunction(() => !document.querySelector("#run").disabled);

  // The sweep's table, legend and CSV use the names on the page.
  await page.fill("#iterations", "3");
  await runSweep(page);
  const table = await page.textContent("#mmtests");
  assert.match(table, /v5\.15 \(2\)/);
  assert.doesNotMatch(table, /v4\.15/, "no column is called v4.15 any more");
  assert.match(await page.textContent("#result-notes"), /v5\.15 \(2\) and v5\.15 are the same configuration/);
  assert.match(await page.textContent("#result-notes"), /no difference beyond noise at every count/);
  const { text: csv } = await download(page, "#export-samples");
  assert.match(csv, /^v5\.15 \(2\),v5\.15,1,1,/m);
  const { text: svg } = await download(page, '[aria-label="Export the throughput chart as SVG"]');
  assert.match(svg, /A v5\.15 \(2\) \(v5\.15\)/, "legend");
  assert.match(svg, /no difference beyond noise/);
  // The caption wraps to the chart's width: read its words across the lines.
  const words = svg.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ");
  assert.match(words, /bars ±1 stddev of 3 iterations/);
  await shots(page, "21-identical-chart", (p) => p.locator('figure[data-chart="throughput"]').scrollIntoViewIfNeeded());

  // A switch renames an automatic name; a typed name stays.
  await page.click("#k0-SHARED_RUNQ");
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v5.15+SHARED_RUNQ");
  assert.equal(await warningsOf(page, 0), "");
  await page.fill("#k0-name", "mine");
  await page.press("#k0-name", "Tab");
  await page.selectOption('[aria-label="Kernel A version"]', "v6.5");
  await page.waitForFunction(() => document.querySelector('.kernel[data-kernel="0"] .kernel-label code').textContent.trim() === "v6.5+SHARED_RUNQ");
  assert.equal(await nameOf(page, 0), "mine");

  // A switch turned on where the version has it anyway: kept, and said.
  await page.selectOption("#preset", "demo");
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v4.15");
  await page.click("#k0-recent-used-prev"); // not in v4.15: a backport
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v4.15+recent-used-prev");
  await page.selectOption('[aria-label="Kernel A version"]', "v5.15");
  await page.waitForFunction(() => document.querySelector("#k0-name").value === "v5.15+recent-used-prev");
  const w = await warningsOf(page, 0);
  assert.match(w, /recent-used-prev is already on by default in v5\.15: v5\.15\+recent-used-prev runs exactly as v5\.15/);
  assert.match(w, /identical to kernel B/);
  await shots(page, "22-kernels-redundant-switch", (p) => p.locator('.kernel[data-kernel="0"]').scrollIntoViewIfNeeded());
  await page.click('.kernel[data-kernel="0"] .kernel-warnings button');
  await page.waitForFunction(() => document.querySelector('.kernel[data-kernel="0"] .kernel-label code').textContent.trim() === "v5.15");
  assert.equal(await nameOf(page, 0), "v5.15", "the label, even where B has it: the field asks for a name");
});

test("the Hmean chart draws each kernel at the true client count with a % vs A panel", async () => {
  await page.selectOption("#preset", "demo");
  await page.fill("#iterations", "3");
  await runSweep(page);
  const { text: svg } = await download(page, '[aria-label="Export the throughput chart as SVG"]');
  assert.match(svg, /% vs A \(v4\.15\)/);
  assert.match(svg, /client\/server pairs \(log scale\)/);
  // A's rings and B's dots sit on the same x positions (one per client count, plus the
  // legend's column): nothing is shifted sideways.
  const xs = (r) => [...new Set([...svg.matchAll(new RegExp(`<circle cx="(\\d+)" cy="\\d+" r="${r}"`, "g"))].map((m) => Number(m[1])))].sort((a, b) => a - b);
  const rings = xs(7), dots = xs(4);
  assert.equal(rings.length, 5, `four client counts and the legend: ${rings}`);
  assert.deepEqual(dots, rings);
  await shots(page, "23-throughput-chart", (p) => p.locator('figure[data-chart="throughput"]').scrollIntoViewIfNeeded());
});

test("a window in which nothing completed is said in the notes, above the table and in the chart", async () => {
  await page.selectOption("#preset", "demo");
  await page.fill("#topo-spec", "1x1x1x1");
  await page.waitForFunction(() => /1 CPUs/.test(document.querySelector("#machine-desc").textContent));
  // Unsorted, repeated: normalised, and the field says so.
  await page.fill("#clients", "8192 1 1");
  assert.equal(await page.textContent("#clients + .field-hint"), "runs 1 8192 (sorted; repeated 1 run once)");
  await page.press("#clients", "Tab");
  assert.equal(await page.inputValue("#clients"), "1 8192");
  await page.fill("#duration", "20");
  await page.fill("#warmup", "2");
  await page.fill("#iterations", "1");
  await runSweep(page);
  const table = await page.textContent("#mmtests");
  assert.match(table, /Hmean\s+8192\s+n\/a \(\s+n\/a\)/, "no mean where nothing completed, not 0.00 (0.00%)");
  assert.match(table, /\(n\/a: an iteration measured nothing there/);
  assert.match(await page.textContent("#table-notes"),
    /v4\.15 at 8192 client\/server pairs: no request completed in the measured window \(18 ms after warm-up\) in its only iteration, so the Hmean there is not a measurement/);
  assert.match(await page.textContent("#result-notes"), /One iteration per point/);
  const { text: svg } = await download(page, '[aria-label="Export the throughput chart as SVG"]');
  assert.match(svg, /× on the axis: no request completed in the measured window/);
  await shots(page, "24-nothing-completed", (p) => p.locator("#result-notes").scrollIntoViewIfNeeded());
  await shots(page, "25-nothing-completed-table", (p) => p.locator("#table-notes").scrollIntoViewIfNeeded());
});

test("a refused field blocks Run and is listed in the sticky bar", async () => {
  await page.selectOption("#preset", "demo");
  await page.fill("#duration", "-5");
  await page.waitForSelector("#field-errors");
  assert.equal(await page.isDisabled("#run"), true, "Run is blocked");
  assert.match(await page.textContent("#field-errors"), /duration_ms: -5 is out of range 1 to \d+/);
  await page.fill("#k1-name", "");
  await page.waitForFunction(() => document.querySelectorAll("#field-errors li").length === 2);
  assert.match(await page.textContent("#field-errors"), /Kernel B, name: 1 to 40 characters/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shots(page, "26-refused-fields");
  // The listed field is one click away.
  await page.click('#field-errors button:has-text("duration_ms")');
  assert.equal(await page.evaluate(() => document.activeElement.id), "duration");
  await page.fill("#duration", "100");
  await page.fill("#k1-name", "v5.15");
  await page.waitForFunction(() => !document.querySelector("#field-errors"));
  assert.equal(await page.isDisabled("#run"), false);
});

test("Copy link confirms beside the button wherever the page is scrolled", async () => {
  for (const [w, h] of VIEWPORTS) {
    await page.setViewportSize({ width: w, height: h });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(100);
    await page.click("#copy-link");
    await page.waitForSelector("#copy-link-status");
    const at = await page.evaluate(() => {
      const r = document.querySelector("#copy-link-status").getBoundingClientRect();
      const b = document.querySelector("#copy-link").getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, bLeft: b.left, bRight: b.right, bBottom: b.bottom, vw: innerWidth, vh: innerHeight };
    });
    assert.ok(at.top >= 0 && at.bottom <= at.vh && at.left >= 0 && at.right <= at.vw, `confirmation in view at ${w}x${h}: ${JSON.stringify(at)}`);
    // Right under the button (the header stays on screen above 700 px).
    if (w > 700) assert.ok(at.top - at.bBottom >= 0 && at.top - at.bBottom < 20 && at.right >= at.bLeft && at.left <= at.bRight + 200, `under the button: ${JSON.stringify(at)}`);
    assert.match(await page.textContent("#copy-link-status"), /Link copied/);
    await page.screenshot({ path: path.join(OUT, `27-copy-link-${w}x${h}.png`) });
  }
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.waitForFunction(() => !document.querySelector("#copy-link-status"), null, { timeout: 8000 });
});

test("a cut link says where it was cut, in plain words", async () => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.click("#copy-link");
  await page.waitForSelector("#permalink");
  const url = await page.inputValue("#permalink");
  const p = await fresh("cut");
  const cut = url.slice(0, url.length - 20);
  const n = cut.split("#")[1].length;
  await p.goto(cut);
  await p.waitForSelector("#link-notice");
  const msg = await p.textContent("#link-notice");
  assert.match(msg, new RegExp(`This link is incomplete \\(cut off after ${n} characters\\): copy the whole link again\\. The address bar keeps the link as pasted\\. The default experiment is loaded instead; Run runs it\\.`));
  // The address bar still shows what was pasted, so the user can see what is wrong.
  await p.waitForTimeout(600);
  assert.equal(await p.evaluate(() => location.href), cut);
  assert.doesNotMatch(msg, /base64|inflate|Adler|symbol/i);
  await shots(p, "28-cut-link");
  await p.context().close();
});

test("results come into view when a sweep ends; tabs open at the top; the phone layout fits", async () => {
  await page.selectOption("#preset", "seed001");
  await runSweep(page);
  await page.waitForSelector("#results-ready");
  await page.evaluate(() => window.scrollTo(0, 0));
  await shots(page, "29-results-ready");
  await page.click("#results-ready");
  await page.waitForFunction(() => {
    const r = document.querySelector("section.results").getBoundingClientRect();
    return r.top >= 0 && r.top < innerHeight / 2;
  });
  await page.evaluate(() => window.scrollTo(0, 2000));
  await page.click("#tab-classroom");
  await page.waitForSelector("article.guide");
  assert.equal(await page.evaluate(() => window.scrollY), 0, "a tab opens at its top");
  await page.click("#tab-sweep");
  // 390 px: nothing is wider than the screen and the Run bar stays on it.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const fit = await page.evaluate(() => {
    const wide = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && getComputedStyle(e).position !== "fixed")
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${[...e.classList].join(".")} ${Math.round(e.getBoundingClientRect().right)}`);
    const run = document.querySelector(".runbar").getBoundingClientRect();
    return { scrollWidth: document.documentElement.scrollWidth, wide: wide.slice(0, 8), runRight: run.right, runBottom: run.bottom, vh: innerHeight };
  });
  assert.ok(fit.scrollWidth <= 390, `page is ${fit.scrollWidth} px wide: ${fit.wide.join(", ")}`);
  assert.ok(fit.runRight <= 390 && fit.runBottom <= fit.vh, `Run bar on screen: ${JSON.stringify(fit)}`);
  await page.locator(".import").scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(OUT, "30-phone-import-390x844.png") });
  await page.setViewportSize({ width: 1366, height: 768 });
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
