// What every end-to-end test file shares: the environment scripts/test-web.sh sets, one
// headless Chromium per file, pages that record their errors, and opening the page until
// it is ready. Not a test file itself (node --test runs *.test.js only).
//
//   SCHEDSIM_URL     the page (dist/ served on 127.0.0.1 under a sub-path), required
//   SCHEDSIM_OUT     where screenshots and downloads go (default target/e2e)
//   SCHEDSIM_CLI     the schedsim command line, if built
//   SCHEDSIM_NATIVE  the native twin of the page (schedsim-native), if built
//   CHROMIUM         the browser (default Debian's /usr/bin/chromium)
import { after } from "node:test";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

export const BASE = process.env.SCHEDSIM_URL;
export const OUT = process.env.SCHEDSIM_OUT || "target/e2e";
export const CLI = process.env.SCHEDSIM_CLI;
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
