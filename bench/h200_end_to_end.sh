#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end run of the built jetgate on a GPU host: probe with every probe and
# the Python runtime, the built-in gates, check and support over the evidence.
# Usage: bench/h200_end_to_end.sh JETGATE_BINARY OUTDIR
# Prints wall times; writes the documents into OUTDIR.
set -uo pipefail
jg=$1
out=$2
mkdir -p "$out/evidence"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
t0=$(ms)
"$jg" probe --cuda --json >"$out/probe-cuda.json" 2>"$out/probe-cuda.stderr"
echo "probe --cuda: exit $? in $(( $(ms) - t0 )) ms"
"$jg" probe --cuda
t0=$(ms)
"$jg" probe --ml --json >"$out/probe-ml.json" 2>"$out/probe-ml.stderr"
echo "probe --ml: exit $? in $(( $(ms) - t0 )) ms"
for gate in cuda-runtime jetson-cuda-runtime; do
  "$jg" run "$gate" --evidence-dir "$out/evidence"
  echo "run $gate: exit $?"
done
sha=${GITHUB_SHA:-local}
"$jg" check --policy data/default-policy.json --evidence-dir "$out/evidence" \
  --candidate-sha "$sha" --require-gate cuda-runtime
echo "check cuda-runtime: exit $?"
"$jg" check --policy data/default-policy.json --evidence-dir "$out/evidence" --candidate-sha "$sha"
echo "check all gates: exit $?"
"$jg" support --evidence-dir "$out/evidence" | tee "$out/support.md"
echo "support: exit $?"
"$jg" summary --evidence-dir "$out/evidence" --policy data/default-policy.json
echo "summary: exit $?"
