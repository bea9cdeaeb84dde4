#!/usr/bin/env bash
# Tests the playground: native unit tests of the web crate, component tests in headless
# Chromium (wasm-bindgen-test), then end-to-end tests of the built dist/ served on
# 127.0.0.1 under a sub-path, and the budgets (bundle size, first render, seed sweeps
# in the page against native). Exits non-zero on any failure.
#
#   scripts/test-web.sh                 everything
#   SCHEDSIM_BUDGETS=0 scripts/test-web.sh   skip the timing of the seven seed sweeps
#
# Screenshots, downloads and budget numbers go to target/e2e/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=serve.sh
source "$ROOT/scripts/serve.sh"
cd "$ROOT"
OUT="$ROOT/target/e2e"
rm -rf "$OUT"
mkdir -p "$OUT"

install_tools
command -v node >/dev/null && command -v npm >/dev/null || apt_install nodejs npm
if [[ ! -d tests/e2e/node_modules/playwright-core ]]; then
  log "installing playwright-core from npm (no browser download: Debian's chromium is used)"
  (cd tests/e2e && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi

log "native tests of the web crate (permalinks, topology edits, charts as SVG, live session)"
nice -n 10 cargo test -p schedsim-web

log "component tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON="$ROOT/tests/webdriver.json" \
  nice -n 10 cargo test -p schedsim-web --target wasm32-unknown-unknown --test browser

build_page
log "building the native twin (schedsim-native) and the CLI for the parity test and the budgets"
nice -n 10 cargo build --release -p schedsim-web -p schedsim-cli --bin schedsim-native --bin schedsim
nice -n 10 cargo build --release -p schedsim --example import_speed

# Serve dist/ under a sub-path, as a static host might.
SITE="$(mktemp -d)"
mkdir -p "$SITE/some/path"
ln -s "$ROOT/dist" "$SITE/some/path/playground"
PORT="$(free_port)"
python3 -m http.server --bind 127.0.0.1 "$PORT" --directory "$SITE" >"$OUT/http.log" 2>&1 &
SERVER=$!
cleanup() { kill "$SERVER" 2>/dev/null || true; rm -rf "$SITE"; }
trap cleanup EXIT
for _ in $(seq 50); do port_taken "$PORT" && break; sleep 0.1; done
URL="http://127.0.0.1:${PORT}/some/path/playground/"
log "end-to-end tests against $URL"

SCHEDSIM_URL="$URL" SCHEDSIM_NATIVE="$ROOT/target/release/schedsim-native" SCHEDSIM_CLI="$ROOT/target/release/schedsim" \
  SCHEDSIM_IMPORT_SPEED="$ROOT/target/release/examples/import_speed" SCHEDSIM_OUT="$OUT" \
  node --test --test-concurrency=1 --test-reporter=spec tests/e2e/

log "budgets"
python3 tests/budgets/report.py "$ROOT/dist" "$ROOT/target/wasm-bindgen" "$OUT" | tee "$OUT/budgets.txt"
log "screenshots and downloads are in $OUT"
