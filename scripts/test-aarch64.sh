#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The aarch64 lane: cross-builds jetgate, its test binary and the fake CUDA driver
# with Debian's g++-aarch64-linux-gnu, then runs the whole suite under qemu-user
# (cmake/toolchains/aarch64-linux-gnu.cmake sets it as the tests' emulator, so
# binfmt_misc need not be registered).
#
# Usage: scripts/test-aarch64.sh [KERNELS_DIR]
#   KERNELS_DIR: a CUDA build's generated/jetgate (default build/generated/jetgate);
#   its fatbin is embedded as it is, so aarch64 and x86_64 carry the same kernels.
# BUILD_DIR (default build-aarch64) and JOBS may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-aarch64}
jobs=${JOBS:-$(nproc)}
kernels=${1:-build/generated/jetgate}
args=()
if [ -f "$kernels/jetgate_kernels.cmake" ] && [ -f "$kernels/jetgate_kernels.fatbin" ]; then
  args+=("-DJETGATE_PREBUILT_KERNELS=$(realpath "$kernels")")
else
  echo "test-aarch64.sh: no prebuilt kernels in $kernels; building without GPU kernels" >&2
  args+=(-DJETGATE_WITH_CUDA=OFF)
fi
command -v qemu-aarch64-static >/dev/null || command -v qemu-aarch64 >/dev/null || {
  echo "test-aarch64.sh: qemu-user not found; run scripts/install-deps.sh --ci" >&2
  exit 2
}
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DJETGATE_WERROR=ON -DJETGATE_BUILD_TESTS=ON -DJETGATE_BUILD_BENCH=OFF \
  -DJETGATE_MAN_PAGE=OFF "${args[@]}" >/dev/null
cmake --build "$build" -j "$jobs"
file "$build/jetgate" | grep -q "ARM aarch64" || { echo "test-aarch64.sh: $build/jetgate is not an aarch64 binary" >&2; exit 1; }
cd "$build"
# qemu-user runs several times slower than the host: a longer per-test timeout.
ctest --output-on-failure -j "$jobs" --timeout 900
