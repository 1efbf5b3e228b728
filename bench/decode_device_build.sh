#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds jetgate's decode bench, CLI and tests on a GPU host that lacks the
# Debian dev packages (the lent H200: nvcc, cmake and ninja, no fmt, CLI11,
# pugixml, yaml-cpp, libyaml, libsodium, RE2, SQLite or GoogleTest). DEPS is a prefix holding those
# headers, static libraries and CMake package files, copied from a
# development machine (Debian 12 here; all are headers or static archives,
# so the binaries need nothing of it at run time):
#
#   D=.carry/decode/deps/usr   (on the development machine, from /usr)
#   include: fmt nlohmann CLI pugixml*.hpp yaml-cpp yaml.h gtest gmock sodium* re2 sqlite3*.h
#   lib/x86_64-linux-gnu: libfmt* libpugixml.* libyaml-cpp.* libyaml.a libgtest*.a
#     libgmock*.a libsodium.a libre2.a libsqlite3.a, and cmake/{GTest,fmt,pugixml,yaml-cpp}
#   share/cmake: CLI11 nlohmann_json
#
# Usage: bench/decode_device_build.sh DEPS [TARGET...]  (from the tree's root;
# kernels for sm_90 only; default targets: the bench, the CLI, the tests and
# the fake drivers the tests load). Log: $OUT/build.log when OUT is set.
set -uo pipefail
deps=$(cd "${1:?usage: decode_device_build.sh DEPS [TARGET...]}" && pwd) || exit 2
shift
targets=("$@")
((${#targets[@]})) || targets=(jetgate_decode_bench jetgate jetgate_tests fake_cuda fake_cuda_no_launch)
log=${OUT:-build}/build.log
mkdir -p "$(dirname "$log")"
t0=$(date +%s)
if cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DJETGATE_WANTED_ARCHS=90 \
  -DCMAKE_PREFIX_PATH="$deps" >"$log" 2>&1 &&
  cmake --build build -j"$(nproc)" --target "${targets[@]}" >>"$log" 2>&1; then
  echo "built ${targets[*]} in $(($(date +%s) - t0)) s"
else
  tail -30 "$log"
  echo "BUILD FAILED (${targets[*]}), log: $log"
  exit 1
fi
