#!/usr/bin/env bash
# docs/cluster/kubernetes/*.yaml against the Kubernetes API's JSON schemas, strictly (an
# unknown field is an error), with PyPI's kubernetes-validate, which bundles the
# schemas of each Kubernetes release (kubeconform would fetch them from the network).
#
#   scripts/test-kubernetes.sh
#
# Idempotent: the validator is installed, pinned, into a venv under target/ when
# missing. Checked against Kubernetes 1.29, the first release with the Job's
# backoffLimitPerIndex on by default (beta), and 1.37, the newest the package bundles;
# then a copy of job.yaml with a misspelt field must be refused, so a validator that
# lets everything through fails the test. Where the validator cannot be installed it
# says SKIPPED with the reason and exits 0; a manifest that does not validate fails.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=1.37.0
VENV="$PWD/target/kubernetes-validate"
KV="$VENV/bin/kubernetes-validate"
DIR=docs/cluster/kubernetes

log() { printf '[test-kubernetes] %s\n' "$*" >&2; }
skip() {
  echo "SKIPPED kubernetes manifests: $*"
  exit 0
}

if ! "$KV" --version 2>/dev/null | grep -qx "$VERSION"; then
  command -v python3 >/dev/null || skip "no python3 to install kubernetes-validate with"
  log "installing kubernetes-validate $VERSION from PyPI into $VENV"
  mkdir -p "$VENV"
  { python3 -m venv "$VENV" && "$VENV/bin/pip" install -q --disable-pip-version-check \
      "kubernetes-validate==$VERSION"; } >"$VENV.log" 2>&1 ||
    skip "kubernetes-validate $VERSION could not be installed (see $VENV.log)"
fi

for k in 1.29 1.37; do
  log "job.yaml and merge.yaml against Kubernetes $k"
  "$KV" --strict -k "$k" "$DIR/job.yaml" "$DIR/merge.yaml"
done

bad=$(mktemp --suffix=.yaml)
trap 'rm -f "$bad"' EXIT
sed 's/^  completions: /  completion: /' "$DIR/job.yaml" >"$bad"
if ! grep -q '^  completion: ' "$bad"; then
  echo "FAILED: job.yaml has no '  completions:' line to misspell" >&2
  exit 1
fi
if "$KV" --strict --quiet "$bad" >/dev/null 2>&1; then
  echo "FAILED: kubernetes-validate accepts a Job with 'completion' (misspelt) in its spec" >&2
  exit 1
fi
echo "kubernetes manifests: 2 files valid against 1.29 and 1.37; a misspelt field refused"
