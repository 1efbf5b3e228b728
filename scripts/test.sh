#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds jetgate and its one test binary, then runs the whole suite with ctest.
# This is the project's own check, so warnings are errors here (JETGATE_WERROR).
# BUILD_DIR (default build/), JOBS and extra CMAKE_ARGS (a string) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
jobs=${JOBS:-$(nproc)}
# ccache (when installed) hashes paths relative to the checkout: clones share the cache.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of words on purpose
# -O1 without debug information: optimised enough for the optimiser's warnings and
# for timing-sensitive tests, and the cheapest build of the whole suite on CI's two
# cores (the release lane builds with -O3).
# _GLIBCXX_ASSERTIONS: an empty std::optional dereferenced, or an index out of range,
# aborts the test that does it instead of reading whatever is there.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG -D_GLIBCXX_ASSERTIONS" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" -DJETGATE_WERROR=ON -DJETGATE_BUILD_TESTS=ON ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 300
