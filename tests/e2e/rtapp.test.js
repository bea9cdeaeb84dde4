// End-to-end tests of rt-app task sets in the page (issue 43): an rt-app file picked in
// the workload form becomes the workload and runs to the CLI's numbers; a link carries
// it; it downloads as the rt-app file the CLI's `show --as rtapp` writes; a file with an
// event the model has not is refused by its key, the workload unchanged. Screenshots at
// 1366x768 and 390x844 go to SCHEDSIM_OUT.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BASE, CLI, cliParity, OUT, problems, download, freshPage, newPage, openPage } from "./helpers.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHAIN = path.join(ROOT, "workloads/rtapp/chain.json");

async function runSweep(p, timeoutMs = 240_000) {
  await p.click("#run");
  await p.waitForFunction(() => !document.querySelector("#cancel") && document.querySelector("section.results[data-wall-ms]")
    && !document.querySelector("#sweep-progress"), null, { timeout: timeoutMs, polling: 100 });
  const failed = await p.$("#sweep-error");
  if (failed) throw new Error(await failed.textContent());
}

test("an rt-app file becomes the workload, runs to the CLI's table, travels by link and downloads as rt-app", async () => {
  const p = await freshPage("rtapp", { clipboard: true });
  await p.selectOption("#preset", "demo");
  await p.setInputFiles("#rtapp-file", CHAIN);
  await p.waitForSelector("#rtapp-current", { timeout: 30_000 });
  assert.match(await p.textContent("#rtapp-current"), /rt-app file chain\.json: 2 threads a copy, 9 events/);
  assert.match(await p.textContent("#rtapp-notes"), /global\.duration = 2 s: the experiment's duration_ms sets how long/);
  assert.equal(await p.inputValue("#workload-kind"), "rtapp");
  assert.match(await p.textContent(".metric-note"), /rt-app work in CPUs busy, higher is better; clients are copies of the task set/);
  await p.fill("#clients", "1 2");
  await p.press("#clients", "Tab");
  await p.fill("#iterations", "1");
  await p.press("#iterations", "Tab");
  await runSweep(p);
  const table = await p.textContent("#mmtests");
  assert.match(table, /rtapp rt-app work/);
  await p.locator("#rtapp-current").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "rtapp-form-1366x768.png") });
  const json = await download(p, "#export-json");
  const exp = JSON.parse(json.text).experiment;
  assert.equal(exp.workload.kind, "rtapp");
  assert.equal(exp.workload.json, fs.readFileSync(CHAIN, "utf8"), "the experiment carries the file's text as it was");
  const file = path.join(OUT, "rtapp-experiment.json");
  fs.writeFileSync(file, JSON.stringify(exp));
  const pageTable = await download(p, "#export-table");
  if (cliParity("rtapp.test.js: the page against the CLI")) {
    const cli = execFileSync(CLI, ["run", file, "--no-progress"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    assert.equal(pageTable.text, cli, "the page's table is the CLI's");
    // The download is the CLI's `show --as rtapp` of the same experiment.
    const asRtapp = execFileSync(CLI, ["show", file, "--as", "rtapp"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    assert.equal((await download(p, "#rtapp-download")).text, asRtapp);
  }
  // The link carries the file: opened elsewhere, the same workload and table.
  await p.click("#copy-link");
  await p.waitForFunction(() => /#v1\./.test(location.href));
  const link = await p.evaluate(() => location.href);
  const q = await newPage("rtapp-link");
  await q.goto(link);
  await q.waitForFunction(() => document.querySelector("#mmtests") && document.querySelector("section.results[data-wall-ms]"), null, { timeout: 120_000 });
  assert.equal(await q.inputValue("#workload-kind"), "rtapp");
  assert.equal(await q.textContent("#mmtests"), table);
  await q.context().close();
  await p.context().close();
});

test("an rt-app file with an event the model has not is refused by its key; the workload stays", async () => {
  const p = await freshPage("rtapp-bad", { viewport: { width: 390, height: 844 }, phone: true });
  await p.selectOption("#preset", "demo");
  const before = await p.inputValue("#workload-kind");
  await p.setInputFiles("#rtapp-file", { name: "mem.json", mimeType: "application/json",
    buffer: Buffer.from('{"tasks":{"t":{"run":100,"mem":4096}}}') });
  await p.waitForSelector("#rtapp-error");
  assert.match(await p.textContent("#rtapp-error"), /Could not use the rt-app file: rt-app file mem\.json: tasks\.t\.mem: not modelled .*The workload is unchanged\./);
  assert.equal(await p.inputValue("#workload-kind"), before);
  await p.locator("#rtapp-error").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "rtapp-refused-390x844.png") });
  const wide = await p.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the page is ${wide} px wide on a 390 px phone`);
  await p.context().close();
});

test("an rt-app file too large for a link: Copy link says so and keeps the address", async () => {
  const p = await freshPage("rtapp-big", { clipboard: true });
  // 4,000 threads of random names: about 200 KB that deflate poorly.
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648).toString(36);
  const tasks = Array.from({ length: 4000 }, () => `"t${rnd()}${rnd()}":{"run":${seed % 900 + 100},"sleep":1000}`).join(",");
  await p.setInputFiles("#rtapp-file", { name: "big.json", mimeType: "application/json", buffer: Buffer.from(`{"tasks":{${tasks}}}`) });
  await p.waitForSelector("#rtapp-current", { timeout: 60_000 });
  const before = await p.evaluate(() => location.hash);
  await p.click("#copy-link");
  await p.waitForSelector("#copy-link-status.failed");
  assert.match(await p.textContent("#copy-link-status"), /link would be \d+ characters, more than the 32768 a link can carry/);
  assert.equal(await p.evaluate(() => location.hash), before, "the address is left as it was");
  await p.context().close();
});

test("our rt-app examples are one choice away, each the file the CLI's rtapp:NAME runs", async () => {
  const p = await freshPage("rtapp-examples", { phone: true, viewport: { width: 390, height: 844 } });
  const names = await p.$$eval("#rtapp-example option", (os) => os.map((o) => o.value).filter(Boolean));
  assert.deepEqual(names, ["pingpong", "chain", "periodic", "convoy", "barrier"]);
  for (const name of names) {
    await p.selectOption("#rtapp-example", name);
    await p.waitForFunction((n) => (document.querySelector("#rtapp-current")?.textContent || "").includes(`rt-app file ${n}.json`), name);
    assert.equal(await p.inputValue("#workload-kind"), "rtapp");
    assert.doesNotMatch(await p.textContent("#rtapp-current"), /tasks\./, `${name}: no note on a task; each uses only what the model runs`);
    if (cliParity("rtapp.test.js: the page against the CLI")) {
      const shown = JSON.parse(execFileSync(CLI, ["show", "--workload", `rtapp:${name}`, "--topology", "1x1x4x1"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
      assert.equal(shown.workload.json, fs.readFileSync(path.join(ROOT, `workloads/rtapp/${name}.json`), "utf8"));
    }
  }
  assert.equal(await p.inputValue("#rtapp-example"), "barrier", "the list names the example the workload is");
  await p.locator("#rtapp-example").scrollIntoViewIfNeeded();
  await p.screenshot({ path: path.join(OUT, "rtapp-examples-390.png") });
});

test("no page error", () => {
  assert.deepEqual(problems, []);
});
