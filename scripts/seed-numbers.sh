#!/usr/bin/env bash
# Regenerates the generated section of docs/seeds.md (every preset's mmtests table)
# from this build; the test in crates/schedsim/tests/seeds.rs checks it in CI.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_EXPECT=1 cargo test --locked -p schedsim --test seeds docs_seeds_md_has_every_presets_numbers
git --no-pager diff --stat -- docs/seeds.md
