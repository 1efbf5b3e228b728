#!/usr/bin/env bash
# The JetPack 6 toolchain lane: builds jetgate and its tests with GCC 11 (JetPack 6's
# compiler) and configures with the oldest CMake jetgate claims, Debian 11's 3.18.4
# (JetPack 6 has 3.22, JetPack 7 3.28), fetched by scripts/old-cmake.sh; then runs
# the whole suite. A unity build: this lane checks the toolchain, not incremental
# rebuilds, and one translation unit per target halves its build time.
#
# Usage: scripts/test-gcc11.sh [KERNELS_DIR]   (see scripts/test-aarch64.sh)
# BUILD_DIR (default build-gcc11), JOBS and CXX (default g++-11) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-gcc11}
jobs=${JOBS:-$(nproc)}
kernels=${1:-build/generated/jetgate}
cxx=${CXX:-g++-11}
cc=${CC:-${cxx/g++/gcc}}
args=()
if [ -f "$kernels/jetgate_kernels.cmake" ]; then
  args+=("-DJETGATE_PREBUILT_KERNELS=$(realpath "$kernels")")
else
  args+=(-DJETGATE_WITH_CUDA=OFF)
fi
old_cmake=$(bash scripts/old-cmake.sh)
export PATH="$old_cmake:$PATH"
cmake --version | head -1
CC=$cc CXX=$cxx cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJETGATE_WERROR=ON \
  -DCMAKE_UNITY_BUILD=ON -DJETGATE_BUILD_BENCH=OFF -DJETGATE_MAN_PAGE=OFF "${args[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
cd "$build"
ctest --output-on-failure -j "$jobs" --timeout 300
