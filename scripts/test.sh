#!/usr/bin/env bash
# Every test of the project, with all set-up a fresh machine needs (idempotent):
#   native: unit, property (swarm + invariant checker), determinism, snapshot and
#           seed-reproduction tests of the simulator, and the CLI tests;
#   slurm:  docs/cluster/slurm.sbatch on a single-node Slurm from Debian's packages
#           (scripts/test-slurm.sh; SKIPPED, saying why, where its daemons cannot start),
#           and the Kubernetes manifests against their schemas (scripts/test-kubernetes.sh);
#   lints:  clippy -D warnings on every crate, the web crate also for wasm32;
#   wasm:   the simulator library builds for wasm32-unknown-unknown;
#   web:    scripts/test-web.sh (browser component and end-to-end tests), if present.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

# GNU parallel (Debian's package; moreutils' parallel is another tool) for the CLI's
# end-to-end test of docs/cluster/parallel.sh, which says SKIPPED without it.
if ! parallel --version 2>/dev/null | grep -q "GNU parallel" && command -v apt-get >/dev/null 2>&1; then
  echo "== installing GNU parallel from Debian (the test of docs/cluster/parallel.sh)"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq parallel >/dev/null; } ||
    echo "GNU parallel could not be installed; its test will say SKIPPED"
fi

# rt-app (Debian's 1.0) for the CLI's test that the real rt-app runs `show --as rtapp`
# output, and the simulator's test over the package's examples; both say SKIPPED without.
if ! command -v rt-app >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "== installing rt-app from Debian (the tests of rt-app workloads)"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq rt-app >/dev/null; } ||
    echo "rt-app could not be installed; its tests will say SKIPPED"
fi

echo "== formatting (rustfmt.toml at the root)"
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
else
  echo "rustfmt is not installed with this toolchain (rustup cannot fetch it offline); format check skipped"
fi

echo "== native tests"
cargo test --workspace --locked

echo "== docs/cluster/slurm.sbatch under a single-node Slurm (scripts/test-slurm.sh installs and starts it)"
scripts/test-slurm.sh
echo "== docs/cluster/kubernetes against the Kubernetes schemas (scripts/test-kubernetes.sh)"
scripts/test-kubernetes.sh

echo "== lints (simulator, CLI and the web crate, native and for the browser)"
if cargo clippy --version >/dev/null 2>&1; then
  cargo clippy --locked -p schedsim -p schedsim-cli -p schedsim-web -p schedsim-wasm-bench --all-targets -- -D warnings
  # For wasm32 the unit tests cannot build (their dev-dependencies are native-only), so:
  # the library, the page and worker binaries, and the browser component tests.
  cargo clippy --locked -p schedsim-web --target wasm32-unknown-unknown --lib --bins --test browser -- -D warnings
else
  echo "clippy is not installed with this toolchain (rustup cannot fetch it offline); lints skipped"
fi

echo "== simulator builds for wasm32-unknown-unknown (and the bare module of scripts/wasm-instr-per-wakeup.sh)"
cargo build --locked -p schedsim -p schedsim-wasm-bench --target wasm32-unknown-unknown

if [ -x scripts/test-web.sh ]; then
  echo "== browser tests"
  scripts/test-web.sh
fi
echo "== all tests passed"
