#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The sanitizer lane: builds with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# (any UBSan report aborts), runs the whole test suite, and builds the libFuzzer
# targets in the same build directory (scripts/fuzz.sh runs them). Debian 12's clang 16
# (CLANG_VERSION): clang 14 rejects lambdas that capture structured bindings, which
# C++20 allows and GCC compiles.
#
# Usage: scripts/test-sanitizers.sh [KERNELS_DIR]   (see scripts/test-aarch64.sh)
# BUILD_DIR (default build-clang), JOBS and extra CMAKE_ARGS (a string) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-clang}
jobs=${JOBS:-$(nproc)}
kernels=${1:-build/generated/jetgate}
args=()
if [ -f "$kernels/jetgate_kernels.cmake" ]; then
  args+=("-DJETGATE_PREBUILT_KERNELS=$(realpath "$kernels")")
else
  args+=(-DJETGATE_WITH_CUDA=OFF)
fi
clang_version=${CLANG_VERSION:-16}
# -O0 with line tables only: readable reports, and the cheapest ASan build of the whole
# suite on CI's two cores (-O1, the sanitizers' usual advice, compiles a third slower).
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of words on purpose
CC=clang-$clang_version CXX=clang++-$clang_version cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -D_GLIBCXX_ASSERTIONS" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only" \
  -DJETGATE_WERROR=ON -DJETGATE_SANITIZE=ON -DJETGATE_FUZZ=ON -DJETGATE_BUILD_TESTS=ON \
  -DJETGATE_BUILD_BENCH=OFF -DJETGATE_MAN_PAGE=OFF "${args[@]}" ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j "$jobs"
# Fail on any report; leaks too. The tests' own children inherit these.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
# JETGATE_CTEST_EXCLUDE (a ctest -E pattern; .ci/run sets it): tests left to the main lane.
exclude=()
[ -n "${JETGATE_CTEST_EXCLUDE:-}" ] && exclude=(-E "$JETGATE_CTEST_EXCLUDE")
ctest --output-on-failure -j "$jobs" --timeout 600 "${exclude[@]}"
