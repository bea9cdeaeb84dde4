// End-to-end tests of the page's state in its URL and of presenter mode: the address bar
// follows every edit, so a reload keeps the experiment; each tab is a history entry for
// Back and Forward; a live link steps as far as it says; theme and presenter mode stay
// for the next visit; presenter mode scales what a room reads and uses a projector's
// width. Run by scripts/test-web.sh (see playground.test.js for the environment).
// Screenshots at 1920x1080 (presenter), 1366x768 and 390x844 go to SCHEDSIM_OUT.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { BASE, OUT, problems, newPage, openPage } from "./helpers.js";

const fresh = (label, viewport) => newPage(label, { viewport });

const hash = (p) => p.evaluate(() => location.hash);
const activeTab = (p) => p.getAttribute('[role="tab"][aria-selected="true"]', "id");
const steps = async (p) => Number((await p.textContent("#live-status")).split(" ")[0]);

// Waits until the address bar differs from `old` and stays put for a while (the page
// writes it once an edit has rested).
async function urlSettles(p, old) {
  await p.waitForFunction((o) => location.hash.startsWith("#v1.") && location.hash !== o, old, { timeout: 10_000 });
  let h = await hash(p);
  for (;;) {
    await p.waitForTimeout(700);
    const h2 = await hash(p);
    if (h2 === h) return h;
    h = h2;
  }
}

test("the URL follows the page: reload keeps edits, tabs are history entries, a live link restores its steps", async () => {
  const p = await fresh("url");
  await openPage(p);
  // The address bar gets the page's state by itself.
  const h0 = await urlSettles(p, "");
  const len0 = await p.evaluate(() => history.length);
  // Typing a seed rewrites the current entry (no new ones).
  await p.fill("#seed", "4242");
  await p.fill("#iterations", "2");
  const h1 = await urlSettles(p, h0);
  assert.equal(await p.evaluate(() => history.length), len0, "edits replace the entry");
  // Reload: the edits are still there, and nothing runs by itself.
  await p.reload();
  await p.waitForSelector(".topo .cpu");
  assert.equal(await p.inputValue("#seed"), "4242");
  assert.equal(await p.inputValue("#iterations"), "2");
  await p.waitForTimeout(500);
  assert.equal(await p.$("#sweep-progress"), null, "a reload does not start the sweep");
  assert.equal(await hash(p), h1, "the reloaded page writes the same link");

  // Tabs: Live, step 7 wakeups; Classroom. Each tab is an entry.
  await p.click("#tab-live");
  await p.waitForSelector(".live-mode .topo .cpu");
  for (let i = 0; i < 7; i++) await p.keyboard.press("Space");
  // The seventh step's status may land a frame after its key press.
  await p.waitForFunction(() => document.querySelector("#live-status").textContent.startsWith("7 "), null, { timeout: 5_000 })
    .catch(() => {});
  assert.equal(await steps(p), 7);
  const hLive = await urlSettles(p, h1);
  await p.click("#tab-classroom");
  await p.waitForSelector("article.guide");
  await urlSettles(p, hLive);
  assert.equal(await p.evaluate(() => history.length), len0 + 2, "two tab changes, two entries");

  // Back: live mode at 7 wakeups; Back: the Sweep view with the edits; Forward, Forward.
  await p.goBack();
  await p.waitForSelector(".live-mode .topo .cpu");
  assert.equal(await activeTab(p), "tab-live");
  await p.waitForFunction(() => /^7 wakeups stepped/.test(document.querySelector("#live-status").textContent), null, { timeout: 10_000 });
  await p.goBack();
  await p.waitForSelector("#seed");
  assert.equal(await activeTab(p), "tab-sweep");
  assert.equal(await p.inputValue("#seed"), "4242");
  await p.goForward();
  await p.waitForSelector(".live-mode .topo .cpu");
  await p.goForward();
  await p.waitForSelector("article.guide");
  assert.equal(await activeTab(p), "tab-classroom");

  // A live link opened in a fresh tab steps as far as it says, and so does a reload.
  await p.goBack();
  await p.waitForSelector(".live-mode .topo .cpu");
  const liveUrl = await p.evaluate(() => location.href);
  const q = await fresh("live-link");
  await q.goto(liveUrl);
  await q.waitForFunction(() => /^7 wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 10_000 });
  assert.equal(await q.$("#seed"), null, "live mode is in front");
  await p.waitForFunction(() => /^7 wakeups stepped/.test(document.querySelector("#live-status").textContent), null, { timeout: 10_000 });
  assert.equal(await q.textContent("#trace-steps"), await p.textContent("#trace-steps"), "the same 7th wakeup");
  // Stepping on in one and the other stays deterministic.
  const qHash = await hash(q);
  await q.keyboard.press("Space");
  await p.keyboard.press("Space");
  // Each step is answered by live mode's worker: wait for it, never read it at once.
  for (const t of [q, p]) {
    await t.waitForFunction(() => /^8 wakeups stepped/.test(document.querySelector("#live-status").textContent), null, { timeout: 10_000 });
  }
  assert.equal(await steps(q), 8);
  assert.equal(await steps(p), 8);
  assert.equal(await q.textContent("#trace-steps"), await p.textContent("#trace-steps"), "the same 8th wakeup");
  await urlSettles(q, qHash);
  await q.reload();
  await q.waitForFunction(() => /^8 wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 10_000 });
  const at8 = await hash(q);
  await q.keyboard.press("r");
  await q.waitForFunction(() => /^0 wakeups/.test(document.querySelector("#live-status").textContent));
  await urlSettles(q, at8);
  await q.reload();
  await q.waitForFunction(() => /^\d+ wakeups stepped/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 10_000 });
  await q.waitForTimeout(500);
  assert.equal(await steps(q), 0, "after Reset the link starts at 0");
  await q.context().close();
  await p.context().close();
});

test("theme and presenter mode persist for the next visit; a link's do not overwrite them", async () => {
  const p = await fresh("prefs");
  await openPage(p);
  await p.selectOption("#theme", "dark");
  await p.keyboard.press("f");
  await p.waitForFunction(() => document.documentElement.dataset.presenter === "on" && document.documentElement.dataset.theme === "dark");
  // A new visit without a link, in the same browser profile.
  const q = await p.context().newPage();
  await openPage(q);
  assert.equal(await q.evaluate(() => document.documentElement.dataset.theme), "dark");
  assert.equal(await q.evaluate(() => document.documentElement.dataset.presenter), "on");
  assert.equal(await q.inputValue("#theme"), "dark");
  // A link made while dark and presenting...
  await urlSettles(q, "");
  const darkLink = await q.evaluate(() => location.href);
  await q.close();
  const stored = await p.evaluate(() => [localStorage.getItem("schedsim.theme"), localStorage.getItem("schedsim.presenter")]);
  assert.deepEqual(stored, ["dark", "on"]);
  await p.keyboard.press("f");
  await p.selectOption("#theme", "light");
  await p.waitForFunction(() => localStorage.getItem("schedsim.presenter") === "off" && localStorage.getItem("schedsim.theme") === "light");
  // ...opens in the viewer's own light theme, not presenting, once they have chosen.
  const r = await p.context().newPage();
  await r.goto(darkLink);
  await r.waitForSelector(".topo .cpu");
  assert.equal(await r.evaluate(() => document.documentElement.dataset.theme), "light");
  assert.equal(await r.evaluate(() => document.documentElement.dataset.presenter), undefined);
  await p.context().close();
});

// Every visible piece of text, with its computed size: the smallest ones, for the message.
async function smallText(p, minPx) {
  return p.evaluate((min) => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      const el = n.parentElement;
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.bottom < 0 || r.top > innerHeight) continue;
      if (el.closest("[hidden], noscript")) continue;
      const px = parseFloat(getComputedStyle(el).fontSize);
      if (px < min) out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${n.textContent.trim().slice(0, 20)}" ${px}px`);
    }
    return out;
  }, minPx);
}

test("presenter mode: a room reads every label at 1920x1080, the page uses the width, phones still fit", async () => {
  const p = await fresh("presenter", { width: 1920, height: 1080 });
  await openPage(p);
  const before = await p.evaluate(() => document.querySelector("main").getBoundingClientRect().width);
  await p.keyboard.press("f");
  await p.waitForFunction(() => document.documentElement.dataset.presenter === "on");
  await p.click("#tab-live");
  await p.waitForSelector(".live-mode .topo .cpu");
  for (let i = 0; i < 6; i++) await p.keyboard.press("Space");
  await p.waitForSelector(".live-mode .cpu.chosen .cpu-marks");
  await p.waitForTimeout(300);
  const m = await p.evaluate(() => {
    const px = (sel) => { const e = document.querySelector(sel); return e ? parseFloat(getComputedStyle(e).fontSize) : 0; };
    return {
      main: document.querySelector("main").getBoundingClientRect().width,
      scrollWidth: document.documentElement.scrollWidth,
      cpuNo: px(".live-mode .cpu .cpu-no"),
      cpuTask: px(".live-mode .cpu .cpu-task"),
      badge: px(".live-mode .cpu .cpu-marks"),
    };
  });
  console.log(`# presenter at 1920: main ${m.main} px (was ${before}), CPU label ${m.cpuNo} px, task ${m.cpuTask} px, role badge ${m.badge} px`);
  assert.ok(m.main >= 1800, `the page uses the projector's width: main is ${m.main} px of 1920`);
  assert.ok(m.scrollWidth <= 1920, `nothing wider than the screen: ${m.scrollWidth}`);
  // CPU numbers, the task on each CPU and the role badges (W, P, T, ★) at 18 px or more.
  for (const k of ["cpuNo", "cpuTask", "badge"]) assert.ok(m[k] >= 18, `${k} is ${m[k]} px`);
  const small = await smallText(p, 16);
  assert.deepEqual(small, [], "no text under 16 px in presenter mode (live view)");
  await p.screenshot({ path: path.join(OUT, "40-presenter-live-1920x1080.png") });
  await p.click("#tab-sweep");
  // The form is folded in presenter mode: its line, and the results, are what a room reads.
  await p.waitForSelector("#inputs-fold");
  assert.deepEqual(await smallText(p, 16), [], "no text under 16 px in presenter mode (sweep view)");
  await p.screenshot({ path: path.join(OUT, "41-presenter-sweep-1920x1080.png") });
  // Smaller screens, presenter mode off: as before, and a phone still fits.
  await p.keyboard.press("f");
  await p.click("#tab-live");
  await p.waitForSelector(".live-mode .topo .cpu");
  for (const [w, h] of [[1366, 768], [390, 844]]) {
    await p.setViewportSize({ width: w, height: h });
    await p.waitForTimeout(200);
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth) <= w, `live mode fits ${w} px`);
    await p.screenshot({ path: path.join(OUT, `42-live-${w}x${h}.png`) });
  }
  // A phone in presenter mode fits too.
  await p.keyboard.press("f");
  await p.waitForTimeout(200);
  const sw = await p.evaluate(() => document.documentElement.scrollWidth);
  await p.screenshot({ path: path.join(OUT, "43-presenter-live-390x844.png") });
  assert.ok(sw <= 390, `presenter mode on a phone is ${sw} px wide`);
  await p.context().close();
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
