// Starts the app. Kept out of index.html so the Content-Security-Policy can forbid
// inline scripts. Trunk writes the hashed file names into the data attributes.
const boot = document.getElementById("boot");
const fail = (msg) => {
  const el = document.getElementById("fatal");
  if (el) {
    el.textContent = "The playground could not start: " + msg;
    el.hidden = false;
  }
};
if (typeof WebAssembly !== "object") {
  fail("this browser has no WebAssembly.");
} else {
  const started = performance.now();
  import(boot.dataset.js)
    .then((m) => m.default({ module_or_path: boot.dataset.wasm }))
    .then(() => {
      // Time to first render, read by the budget test.
      window.__schedsimStartedMs = performance.now() - started;
      document.documentElement.dataset.ready = "1";
    })
    .catch((e) => fail(String(e && e.message ? e.message : e)));
}
