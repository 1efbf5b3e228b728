#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Release builds of jetgate for x86_64 and aarch64: Release, stripped, libstdc++ and
# libgcc linked statically, yaml-cpp, libyaml and pugixml static, so the only libraries
# needed at run time are glibc's (libc, libm, libdl, the dynamic loader). The CUDA
# driver is dlopen'ed, never linked.
#
# Built with GCC 11 (x86_64: g++-11, aarch64: g++-11-aarch64-linux-gnu), not Debian 12's
# GCC 12: GCC 12's static libstdc++ and unwinder call arc4random (glibc 2.36) and
# _dl_find_object (2.35), so its binary would not start on JetPack 6 (Ubuntu 22.04,
# glibc 2.35). GCC 11's need nothing newer than glibc 2.34 itself does. RELEASE_GCC
# (default 11) picks another version. Writes into dist/:
#   jetgate-VERSION-linux-ARCH.tar.gz   bin/jetgate, the man page and docs
#   jetgate_VERSION_ARCH.deb, jetgate-dev_VERSION_ARCH.deb
#   jetgate-VERSION-linux-ARCH.glibc    the glibc symbol versions it needs (objdump -T)
#
# Usage: scripts/build-release.sh [--kernels DIR] [--test] [--goldens] [--oldest-cmake] [x86_64] [aarch64]
#   --kernels DIR   a CUDA build's generated/jetgate whose fatbin is embedded (default
#                   build/generated/jetgate when present; else nvcc runs if found)
#   --test          also build the test binary and run the whole suite against the
#                   release build before packing it (aarch64: under qemu-user)
#   --goldens       run the release binary (aarch64: under qemu-user) on every recorded
#                   machine and compare with its golden document (scripts/check-goldens.py),
#                   a check of the binary itself that needs no test binary
#   --oldest-cmake  configure, build and pack with Debian 11's CMake 3.18.4, the oldest
#                   jetgate claims (scripts/old-cmake.sh)
# CI runs `--test --goldens --oldest-cmake aarch64`: the GCC 11 (JetPack 6's compiler)
# lane, the oldest-CMake check and the aarch64 lane (the whole suite under qemu-user)
# are that release build itself.
# JOBS, JETGATE_WERROR (OFF by default, as for any Release build) and extra CMAKE_ARGS
# (a string) may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${JOBS:-$(nproc)}
kernels=""
[ -f build/generated/jetgate/jetgate_kernels.cmake ] && kernels=build/generated/jetgate
arches=()
with_tests=OFF
goldens=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kernels) kernels=$2; shift ;;
    --test) with_tests=ON ;;
    --goldens) goldens=1 ;;
    --oldest-cmake) PATH="$(bash scripts/old-cmake.sh):$PATH"; export PATH ;;
    x86_64|aarch64) arches+=("$1") ;;
    -h|--help) sed -n '3,30p' "$0"; exit 0 ;;
    *) echo "build-release.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 aarch64)
cmake --version | head -1
mkdir -p dist
dist=$(realpath dist)

# Fails unless every NEEDED library is part of glibc; prints the newest GLIBC_x.y
# symbol version the binary references, i.e. the oldest glibc it runs on.
check_runtime_deps() {
  local bin=$1 objdump=$2 needed bad=""
  needed=$("$objdump" -p "$bin" | awk '/NEEDED/ {print $2}')
  for lib in $needed; do
    case "$lib" in
      libc.so.6|libm.so.6|libdl.so.2|libpthread.so.0|librt.so.1|ld-linux-*.so.*) ;;
      *) bad+=" $lib" ;;
    esac
  done
  if [ -n "$bad" ]; then
    echo "build-release.sh: $bin needs libraries outside glibc:$bad" >&2
    return 1
  fi
  "$objdump" -T "$bin" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)+' | sort -u -V
}

for arch in "${arches[@]}"; do
  build=build-release-$arch
  args=(-DCMAKE_BUILD_TYPE=Release "-DJETGATE_BUILD_TESTS=$with_tests" -DJETGATE_BUILD_BENCH=OFF
        -DJETGATE_STATIC_RUNTIME=ON
        -DJETGATE_WITH_SIMDJSON=OFF  # Debian ships libsimdjson shared only: not glibc-only
        "-DJETGATE_WERROR=${JETGATE_WERROR:-OFF}")
  # shellcheck disable=SC2206  # CMAKE_ARGS is a list of words on purpose
  [ -n "${CMAKE_ARGS:-}" ] && args+=(${CMAKE_ARGS})
  if [ -n "$kernels" ] && [ -f "$kernels/jetgate_kernels.cmake" ]; then
    args+=("-DJETGATE_PREBUILT_KERNELS=$(realpath "$kernels")")
  elif [ -n "$kernels" ]; then
    echo "build-release.sh: no jetgate_kernels.cmake in $kernels; nvcc runs if found" >&2
  fi
  objdump=objdump
  emulator=()
  gcc_version=${RELEASE_GCC:-11}
  compilers=(CC="gcc-$gcc_version" CXX="g++-$gcc_version")
  if [ "$arch" = aarch64 ] && [ "$(uname -m)" != aarch64 ]; then
    args+=(-DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
           "-DJETGATE_CROSS_GCC_SUFFIX=-$gcc_version")
    objdump=aarch64-linux-gnu-objdump
    compilers=()
    emulator=("$(command -v qemu-aarch64-static || command -v qemu-aarch64 || echo qemu-aarch64-static)")
  fi
  env "${compilers[@]}" cmake -S . -B "$build" "${args[@]}" >/dev/null
  cmake --build "$build" -j "$jobs"
  if [ "$with_tests" = ON ]; then
    # qemu-user runs several times slower than the host: a longer per-test timeout.
    # JETGATE_CTEST_EXCLUDE (a ctest -E pattern; .ci/run sets it): tests left to the main lane.
    exclude=()
    [ -n "${JETGATE_CTEST_EXCLUDE:-}" ] && exclude=(-E "$JETGATE_CTEST_EXCLUDE")
    (cd "$build" && ctest --output-on-failure -j "$jobs" --timeout 900 "${exclude[@]}")
  fi
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
  name=jetgate-$version-linux-$arch
  stage=$(mktemp -d)
  cmake --install "$build" --prefix "$stage/$name" --component runtime >/dev/null
  cmake --install "$build" --prefix "$stage/$name" --component license >/dev/null
  bin="$stage/$name/bin/jetgate"
  file "$bin" | grep -q "stripped" && ! file "$bin" | grep -q "not stripped" || {
    echo "build-release.sh: $bin is not stripped" >&2; exit 1; }
  # The goldens are checked with the binary that ships: the stripped one in the tarball
  # (the test suite above already ran the unstripped build).
  if ((goldens)); then
    python3 scripts/check-goldens.py "$bin" "${emulator[@]}"
  fi
  check_runtime_deps "$bin" "$objdump" >"$dist/$name.glibc"
  tar -C "$stage" -czf "$dist/$name.tar.gz" "$name"
  # The checksum beside the tarball, as jetgate init's install action reads it
  # (JETGATE_RELEASE_URL/NAME.tar.gz.sha256) when the workflow pins none.
  (cd "$dist" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
  rm -rf "$stage"
  (cd "$build" && cpack -G DEB -B "$dist" >/dev/null && rm -rf "$dist/_CPack_Packages")
  echo "$name: needs glibc >= $(tail -1 "$dist/$name.glibc" | sed 's/GLIBC_//'), libraries: $("$objdump" -p "$build/jetgate" | awk '/NEEDED/ {printf "%s ", $2}')"
done
ls -l "$dist"
