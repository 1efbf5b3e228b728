#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prepares, on the development machine, what bench/decode_h200.sh runs on a
# GPU host that cannot build jetgate (no Debian dev packages there): builds
# jetgate, jetgate_tests, jetgate_decode_bench and the fake driver libraries
# in BIN_DIR (default build, as configured; the kernels must include sm_90,
# which the default JETGATE_WANTED_ARCHS does), strips the three binaries in
# place (they drop from ~270 MB to ~25 MB together), records the source
# tree's path (the test binary holds absolute paths; decode_h200.sh links
# that path to wherever the tree lands) and prints the paths to carry.
#
# Usage: bench/decode_carry.sh [BIN_DIR]     (from any directory)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build}
if [[ ! -f "$bin/CMakeCache.txt" ]]; then
  cmake -S . -B "$bin" >/dev/null
fi
cmake --build "$bin" -j"$(nproc)" --target jetgate jetgate_tests jetgate_decode_bench fake_cuda \
  fake_cuda_no_launch >/dev/null
# The embedded image names its architectures: "75,80,...,90,...".
archs=$(grep -o '"[0-9,]*"}' "$bin/generated/jetgate/kernel_image.cpp" | tr -d '"}' || true)
if [[ ",$archs," != *",90,"* ]]; then
  echo "$bin holds no sm_90 kernels (archs: ${archs:-none}): configure with nvcc present" >&2
  exit 1
fi
for f in jetgate tests/jetgate_tests tests/jetgate_decode_bench; do strip "$bin/$f"; done
pwd >"$bin/source_dir"
du -ch "$bin/jetgate" "$bin/tests/jetgate_tests" "$bin/tests/jetgate_decode_bench" \
  "$bin"/tests/libfake_cuda*.so | tail -1 >&2
echo "carry:"
for f in jetgate tests/jetgate_tests tests/jetgate_decode_bench tests/libfake_cuda.so \
  tests/libfake_cuda_no_launch.so source_dir; do
  echo "  $bin/$f"
done
