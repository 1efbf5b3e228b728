#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The long local fuzzing run (not CI's 60 s per target): builds the libFuzzer targets
# optimised (-O2, ASan and UBSan, no test binary) in BUILD_DIR (default build-fuzz) and
# runs each target for RUNS executions (default 10 million) through scripts/fuzz.sh,
# JOBS targets at a time. Prints executions and coverage per target; keeps any crashing
# input in BUILD_DIR/fuzz-artifacts (add it to a regression test).
#
# Usage: scripts/fuzz-long.sh [--runs N] [--jobs J] [--workers W] [--timeout S] [--keep-corpus]
#                             [TARGET...]
# (--workers as in scripts/fuzz.sh: W processes per target, N executions in all.)
# (--keep-corpus as in scripts/fuzz.sh: merge what was found into tests/fuzz/corpus/.)
# (--timeout as in scripts/fuzz.sh: raise it when other work shares the cores.)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-fuzz}
runs=10000000
jobs=${JOBS:-$(nproc)}
timeout_s=10
workers=1
keep=()
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --workers) workers=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --keep-corpus) keep=(--keep-corpus) ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) echo "fuzz-long.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
# Checked here too, before the build: scripts/fuzz.sh says which option is wrong.
case "$runs,$jobs,$workers,$timeout_s" in
  *[!0-9,]*|,*|*,,*|*,)
    echo "fuzz-long.sh: --runs, --jobs, --workers and --timeout take whole numbers (got $runs, $jobs, $workers, $timeout_s)" >&2
    exit 2 ;;
esac
clang_version=${CLANG_VERSION:-16}
# FUZZ_PREBUILT=1: the targets in BUILD_DIR were built elsewhere (a machine without
# clang runs them); skip the build.
[ "${FUZZ_PREBUILT:-0}" = 1 ] || {
CC=clang-$clang_version CXX=clang++-$clang_version cmake -S . -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" -DJETGATE_SANITIZE=ON -DJETGATE_FUZZ=ON \
  -DJETGATE_BUILD_TESTS=OFF -DJETGATE_WITH_CUDA=OFF -DJETGATE_BUILD_BENCH=OFF \
  -DJETGATE_PCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target jetgate_fuzzers
}
# ASan keeps the last 256 MB of freed memory in quarantine by default, and with
# the allocator's caches a run of millions of inputs creeps past libFuzzer's
# -rss_limit_mb (fuzz_cdi_yaml: 1 GB after 400k executions and rising, while a
# single input repeated 30000 times stays flat without the quarantine): a false
# out-of-memory. 32 MB still catches a use after free of recent memory.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:quarantine_size_mb=32}
BUILD_DIR=$build exec scripts/fuzz.sh --runs "$runs" --jobs "$jobs" --workers "$workers" --timeout "$timeout_s" \
  "${keep[@]}" "${targets[@]}"
