#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End to end on a machine with a GPU: a runner key, a gate run that signs its
# evidence, `check` under a policy that trusts only that key, then the evidence
# edited after signing (one count) must be rejected, and an unsigned run must not
# count. Prints each command's exit status; exits 1 when any expectation fails.
#
# The gate runs in a scratch git repository of one commit (the policy is its only
# file), so the evidence names a real, clean commit.
#
# Usage: bench/signed-evidence-e2e.sh JETGATE OUT_DIR   (from jetgate's checkout)
set -uo pipefail
jetgate=$(realpath "$1")
examples=$(realpath docs/examples)
mkdir -p "$2"
out=$(realpath "$2")
work=$(mktemp -d)
status=0
expect() {  # expect EXIT_WANTED DESCRIPTION -- COMMAND...
  local want=$1 what=$2
  shift 3
  "$@" >"$work/out" 2>&1
  local got=$?
  printf '%-60s exit %d (want %d)\n' "$what" "$got" "$want"
  sed 's/^/    /' "$work/out" | head -n 40
  [ "$got" = "$want" ] || status=1
}
expect 0 "keygen" -- "$jetgate" keygen "$work/runner.key" --owner e2e-runner
mkdir -p "$work/repo/ci"
python3 - "$work" "$examples" <<'PY'
import json, sys
work, examples = sys.argv[1], sys.argv[2]
policy = json.load(open(f"{examples}/x86-cuda-policy.json"))
policy["gates"] = [g for g in policy["gates"] if g["id"] == "cuda-runtime"]
policy["trusted_keys"] = [json.load(open(f"{work}/runner.key.pub.json"))]
json.dump(policy, open(f"{work}/repo/ci/conditional-test-policy.json", "w"), indent=2)
PY
cd "$work/repo"
git init -q && git add -A &&
  git -c user.name=e2e -c user.email=e2e@localhost commit -qm "policy" || exit 1
sha=$(git rev-parse HEAD)
policy=$work/repo/ci/conditional-test-policy.json
expect 0 "run cuda-runtime --sign-key" -- "$jetgate" run cuda-runtime --policy "$policy" \
  --evidence-dir "$out/signed" --sign-key "$work/runner.key"
expect 0 "check: signed by the trusted key" -- "$jetgate" check --policy "$policy" \
  --evidence-dir "$out/signed" --candidate-sha "$sha"
cp -r "$out/signed" "$work/edited"
python3 - "$work/edited/cuda-runtime.json" <<'PY'
import json, sys
p = sys.argv[1]
e = json.load(open(p))
e["counts"]["tests"] += 1
json.dump(e, open(p, "w"), indent=2)
PY
expect 1 "check: evidence edited after signing" -- "$jetgate" check --policy "$policy" \
  --evidence-dir "$work/edited" --candidate-sha "$sha"
expect 0 "run cuda-runtime unsigned" -- "$jetgate" run cuda-runtime --policy "$policy" \
  --evidence-dir "$out/unsigned"
expect 1 "check: unsigned evidence under trusted_keys" -- "$jetgate" check \
  --policy "$policy" --evidence-dir "$out/unsigned" --candidate-sha "$sha"
expect 0 "summary of the signed evidence" -- "$jetgate" summary --policy "$policy" \
  --evidence-dir "$out/signed"
cp "$work/runner.key.pub.json" "$out/"
rm -rf "$work"
exit $status
