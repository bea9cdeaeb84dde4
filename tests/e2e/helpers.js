// What every end-to-end test file shares: the environment scripts/test-web.sh sets, one
// headless Chromium per file, pages that record their errors, and opening the page until
// it is ready. Not a test file itself (node --test runs *.test.js only).
//
//   SCHEDSIM_URL     the page (dist/ served on 127.0.0.1 under a sub-path), required
//   SCHEDSIM_OUT     where screenshots and downloads go (default target/e2e)
//   SCHEDSIM_CLI     the schedsim command line (the parity checks need it; see cliParity)
//   SCHEDSIM_NO_CLI  1: run without the CLI parity checks, each said on stderr
//   SCHEDSIM_NATIVE  the native twin of the page (schedsim-native), if built
//   CHROMIUM         the browser (default Debian's /usr/bin/chromium)
import { after } from "node:test";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

export const BASE = process.env.SCHEDSIM_URL;
export const OUT = process.env.SCHEDSIM_OUT || "target/e2e";
export const CLI = process.env.SCHEDSIM_CLI;

// A parity check against the CLI runs only with SCHEDSIM_CLI set: without it the check
// fails, unless SCHEDSIM_NO_CLI=1 says to run without them, and then each one left out
// is said on stderr (a check that passes silently when it did not run is no check).
export function cliParity(what) {
  if (CLI) return true;
  if (process.env.SCHEDSIM_NO_CLI === "1") {
    console.error(`PARITY NOT CHECKED (SCHEDSIM_NO_CLI=1): ${what}`);
    return false;
  }
  throw new Error(`set SCHEDSIM_CLI (scripts/test-web.sh does) to check ${what}, or SCHEDSIM_NO_CLI=1 to leave the CLI parity checks out`);
}
export const NATIVE = process.env.SCHEDSIM_NATIVE;
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
if (!BASE) throw new Error("set SCHEDSIM_URL (scripts/test-web.sh does)");
fs.mkdirSync(OUT, { recursive: true });
export const origin = new URL(BASE).origin;

// Page errors, console errors and (for watched pages) requests to another origin and
// CSP violations: each test file checks at its end that there were none.
export const problems = [];

// Launched by the first page a file asks for (node:test runs a file's top-level
// `before` hooks as they are registered, so a file's own hook cannot wait for one here).
let browser;
function launched() {
  browser ??= chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions"],
  });
  return browser;
}
after(async () => {
  if (browser) await (await browser).close();
});

// Records `page`'s errors in `problems`, each line starting with `label`; `foreign`
// also records requests to another origin and Content Security Policy reports.
export function watch(page, label, { foreign = false } = {}) {
  if (foreign) {
    page.on("request", (r) => {
      const u = r.url();
      if (!(u.startsWith(origin + "/") || u.startsWith("data:") || u.startsWith("blob:"))) problems.push(`${label}: request to another origin: ${u}`);
    });
  }
  page.on("pageerror", (e) => problems.push(`${label}: page error: ${e.message}`));
  page.on("console", (m) => {
    const t = m.text();
    if (m.type() === "error" && !/favicon/.test(t)) problems.push(`${label}: console error: ${t}`);
    if (foreign && /Content.Security.Policy/i.test(t)) problems.push(`${label}: CSP: ${t}`);
  });
}

// A page in a browser context of its own (its own storage), watched, not yet opened.
// `clipboard` grants the page's origin the clipboard (Copy link); `phone` makes it a
// phone's (a device pixel ratio of 3, touch, mobile viewport).
export async function newPage(label, { viewport = { width: 1366, height: 768 }, clipboard = false, foreign = false, phone = false } = {}) {
  const device = phone ? { deviceScaleFactor: 3, isMobile: true, hasTouch: true } : {};
  const ctx = await (await launched()).newContext({ acceptDownloads: true, viewport, ...device });
  if (clipboard) await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await ctx.newPage();
  watch(page, label, { foreign });
  return page;
}

// Opens the page (with a link's fragment, if given) and waits until it is ready: the
// machine is drawn.
export async function openPage(page, fragment = "") {
  await page.goto(BASE + fragment);
  // Attached, not visible: presenter mode folds the Sweep view's machine away.
  await page.waitForSelector(".topo .cpu", { state: "attached" });
}

// newPage, then openPage.
export async function freshPage(label, options) {
  const page = await newPage(label, options);
  await openPage(page);
  return page;
}

// Clicks `selector`, saves what it downloads under OUT/downloads, returns its name and text.
export async function download(page, selector) {
  const [d] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  const file = path.join(OUT, "downloads", d.suggestedFilename());
  fs.mkdirSync(path.dirname(file), { recursive: true });
  await d.saveAs(file);
  return { name: d.suggestedFilename(), text: fs.readFileSync(file, "utf8") };
}

// Every text of chart `id` as its canvas draws it, laid out by Chromium from the SVG
// export (the same drawing at the same size): boxes in the chart's pixels, and type
// sizes. plotters-svg writes each font-size as the size / 1.24 while the canvas draws
// at the size, so the sizes are put back first: the boxes are the canvas' text.
export async function chartTexts(p, id) {
  const { text } = await download(p, `figure[data-chart="${id}"] button[aria-label="Export the ${id} chart as SVG"]`);
  const q = await p.context().newPage();
  await q.setContent(`<!doctype html><body style="margin:0">${text}</body>`);
  const out = await q.evaluate(() => {
    const svg = document.querySelector("svg");
    for (const t of svg.querySelectorAll("text")) t.setAttribute("font-size", String(parseFloat(t.getAttribute("font-size")) * 1.24));
    const o = svg.getBoundingClientRect();
    return {
      w: o.width,
      h: o.height,
      texts: [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim()).map((t) => {
        const r = t.getBoundingClientRect();
        return { t: t.textContent.trim(), x0: r.left - o.left, y0: r.top - o.top, x1: r.right - o.left, y1: r.bottom - o.top, px: parseFloat(getComputedStyle(t).fontSize) };
      }),
    };
  });
  await q.close();
  return out;
}

// Pairs of texts whose boxes overlap by more than a pixel each way, and texts outside
// the chart.
export function textProblems({ w, h, texts }) {
  const out = [];
  for (let i = 0; i < texts.length; i++) {
    const a = texts[i];
    if (a.x0 < -0.5 || a.y0 < -0.5 || a.x1 > w + 0.5 || a.y1 > h + 0.5) out.push(`"${a.t}" is cut by the chart's edge`);
    for (let j = i + 1; j < texts.length; j++) {
      const b = texts[j];
      const dx = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const dy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (dx > 1 && dy > 1) out.push(`"${a.t}" overlaps "${b.t}" (${dx.toFixed(1)} x ${dy.toFixed(1)} px)`);
    }
  }
  return out;
}
