#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Long fuzzing on a machine with many cores: measures each target's executions per
# second alone (one process, --probe seconds), then gives the cores to the targets in
# inverse proportion to their speed, so that all of them run about the same number of
# executions in the same wall time, and runs them at once for --time seconds
# (scripts/fuzz.sh --workers). Prints the measured speed and the executions reached per
# target, and merges what was found into tests/fuzz/corpus/ with --keep-corpus.
#
# Usage: scripts/fuzz-spread.sh [--probe S] [--time S] [--cores N] [--keep-corpus] TARGET...
#   --probe  seconds of the speed measurement per target (default 20; the targets are
#            measured at once, one core each, while the machine is otherwise idle)
#   --time   seconds of the long run (default 480)
#   --cores  processes in all (default nproc)
# BUILD_DIR (default build-fuzz) holds the targets, optimised as scripts/fuzz-long.sh
# builds them (FUZZ_PREBUILT=1 scripts/fuzz-long.sh skips the build there).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-fuzz}
probe_s=20 time_s=480 cores=$(nproc) keep=() targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --probe) probe_s=$2; shift ;;
    --time) time_s=$2; shift ;;
    --cores) cores=$2; shift ;;
    --keep-corpus) keep=(--keep-corpus) ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) echo "fuzz-spread.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
case "$probe_s,$time_s,$cores" in
  *[!0-9,]*|,*|*,,*|*,)
    echo "fuzz-spread.sh: --probe, --time and --cores take whole numbers" >&2; exit 2 ;;
esac
[ ${#targets[@]} -gt 0 ] || { echo "fuzz-spread.sh: name the targets (e.g. fuzz_sanitize)" >&2; exit 2; }
[ "$cores" -ge "${#targets[@]}" ] || {
  echo "fuzz-spread.sh: --cores $cores is fewer than the ${#targets[@]} targets" >&2; exit 2; }
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:quarantine_size_mb=32}

echo "=== speed: each target alone for $probe_s s"
speeds=$(BUILD_DIR=$build bash scripts/fuzz.sh --time "$probe_s" --jobs "${#targets[@]}" "${targets[@]}")
printf '%s\n' "$speeds"

# workers_i = max(1, round(cores * (1/rate_i) / sum(1/rate)))
plan=$(printf '%s\n' "$speeds" | awk -v cores="$cores" '
  /^ok / { t = $2; sub(":", "", t); r = $5; sub(/^\(/, "", r); sub(/\/s$/, "", r); r += 0
           if (r < 1) r = 1; name[++n] = t; rate[n] = r; inv += 1 / r }
  END { left = cores
        for (i = 1; i <= n; i++) { w[i] = int(cores * (1 / rate[i]) / inv + 0.5); if (w[i] < 1) w[i] = 1 }
        for (i = 1; i <= n; i++) printf "%s %d %d\n", name[i], w[i], rate[i] }')
echo "=== plan (target, processes, executions/s of one): $(printf '%s' "$plan" | tr '\n' ';')"

echo "=== long run: $time_s s"
status=0 pids=()
while read -r t w _; do
  BUILD_DIR=$build bash scripts/fuzz.sh --time "$time_s" --workers "$w" "${keep[@]}" "$t" &
  pids+=($!)
done <<<"$plan"
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
