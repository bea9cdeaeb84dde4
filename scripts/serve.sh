#!/usr/bin/env bash
# Builds the playground and serves dist/ on 127.0.0.1, printing the URL.
#
#   scripts/serve.sh            install what is missing, build, serve on $PORT (default 8080,
#                               or a free port if that one is taken)
#   scripts/serve.sh --no-serve install and build only
#
# Idempotent: each tool is installed only when missing or at the wrong version. Other
# scripts source this file for install_tools and build_page.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[schedsim-web] %s\n' "$*" >&2; }

apt_install() {
  # $@: packages to install if any is missing.
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if ((${#missing[@]})); then
    log "installing ${missing[*]} from Debian"
    local sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

install_tools() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if ! trunk --version 2>/dev/null | grep -q "trunk ${TRUNK_VERSION}\b"; then
    log "installing trunk ${TRUNK_VERSION} (a few minutes)"
    nice -n 10 cargo install trunk --version "${TRUNK_VERSION}" --locked
  fi
  # The CLI must equal the wasm-bindgen crate in Cargo.lock. No --locked: its lock file
  # names a webpki-roots version the registry does not serve.
  if ! wasm-bindgen --version 2>/dev/null | grep -q "wasm-bindgen ${WASM_BINDGEN_VERSION}\b" ||
     ! command -v wasm-bindgen-test-runner >/dev/null; then
    log "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION}"
    nice -n 10 cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --force
  fi
  apt_install chromium chromium-driver python3
  install_wasm_opt
}

# wasm-opt from npm's binaryen (pinned in tools/package.json), into tools/node_modules:
# Debian's binaryen 108 cannot parse the externref table code wasm-bindgen 0.2.130 emits.
# Trunk takes wasm-opt from PATH and checks its version against Trunk.toml's [tools].
WASM_OPT_VERSION=132
WASM_OPT_BIN="$ROOT/tools/node_modules/.bin"
install_wasm_opt() {
  if "$WASM_OPT_BIN/wasm-opt" --version 2>/dev/null | grep -q "version ${WASM_OPT_VERSION}\b"; then
    return 0
  fi
  command -v npm >/dev/null || apt_install nodejs npm
  log "installing wasm-opt ${WASM_OPT_VERSION} (npm binaryen) into tools/node_modules"
  (cd "$ROOT/tools" && npm ci --no-audit --no-fund --loglevel=error)
}

build_page() {
  cd "$ROOT"
  log "building the page (trunk build --release)"
  # Our wasm-opt first on PATH (Trunk refuses any other version: Trunk.toml [tools]).
  local path="$WASM_OPT_BIN:$PATH"
  # --offline when the crates are already fetched; fall back to fetching them once.
  if ! PATH="$path" nice -n 10 trunk build --release --offline; then
    log "offline build failed; fetching crates and retrying"
    cargo fetch
    PATH="$path" nice -n 10 trunk build --release --offline
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_taken() {
  python3 -c 'import socket,sys; s=socket.socket(); sys.exit(0 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) == 0 else 1)' "$1"
}

serve() {
  local port="${PORT:-8080}"
  if port_taken "$port"; then
    port="$(free_port)"
  fi
  log "serving $ROOT/dist"
  echo "schedsim playground: http://127.0.0.1:${port}/"
  exec python3 -m http.server --bind 127.0.0.1 "$port" --directory "$ROOT/dist"
}

main() {
  install_tools
  build_page
  if [[ "${1:-}" == "--no-serve" ]]; then
    log "built $ROOT/dist"
    return 0
  fi
  serve
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  main "$@"
fi
