#!/usr/bin/env bash
# The long local fuzzing run (not CI's 60 s per target): builds the libFuzzer targets
# optimised (-O2, ASan and UBSan, no test binary) in BUILD_DIR (default build-fuzz) and
# runs each target for RUNS executions (default 10 million) through scripts/fuzz.sh,
# JOBS targets at a time. Prints executions and coverage per target; keeps any crashing
# input in BUILD_DIR/fuzz-artifacts (add it to a regression test).
#
# Usage: scripts/fuzz-long.sh [--runs N] [--jobs J] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-fuzz}
runs=10000000
jobs=${JOBS:-$(nproc)}
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    -*) echo "fuzz-long.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
clang_version=${CLANG_VERSION:-16}
CC=clang-$clang_version CXX=clang++-$clang_version cmake -S . -B "$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only" -DJETGATE_SANITIZE=ON -DJETGATE_FUZZ=ON \
  -DJETGATE_BUILD_TESTS=OFF -DJETGATE_WITH_CUDA=OFF -DJETGATE_BUILD_BENCH=OFF \
  -DJETGATE_PCH=OFF >/dev/null
cmake --build "$build" -j "$jobs" --target jetgate_fuzzers
BUILD_DIR=$build exec scripts/fuzz.sh --runs "$runs" --jobs "$jobs" "${targets[@]}"
