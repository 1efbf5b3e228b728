#!/usr/bin/env bash
# The packaging test: `cmake --install` of a build into a temporary prefix, a small
# project that uses the installed library through find_package(jetgate), and the
# .deb packages CPack makes, listed with dpkg-deb -c. Fails on anything missing.
#
# Usage: scripts/test-packaging.sh [BUILD_DIR]   (default build-release-x86_64;
#        any native build with the man page on will do)
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build-release-x86_64}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_file() { [ -e "$1" ] && echo "ok: ${1#"$tmp"/}" || fail "missing ${1#"$tmp"/}"; }

# --- cmake --install ------------------------------------------------------------
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
expect_file "$prefix/bin/jetgate"
expect_file "$prefix/bin/jetgate-record-root"
expect_file "$prefix/share/man/man1/jetgate.1.gz"
expect_file "$prefix/share/doc/jetgate/README.md"
expect_file "$prefix/share/doc/jetgate/evidence-schema.md"
expect_file "$prefix/lib/libjetgate_core.a"
expect_file "$prefix/include/jetgate/facts/os_release.hpp"
expect_file "$prefix/lib/cmake/jetgate/jetgateConfig.cmake"
expect_file "$prefix/lib/cmake/jetgate/jetgateConfigVersion.cmake"
if file "$prefix/bin/jetgate" | grep -q "not stripped"; then fail "bin/jetgate is not stripped"; fi
"$prefix/bin/jetgate" --version | grep -q "^jetgate " || fail "installed jetgate --version"
zcat "$prefix/share/man/man1/jetgate.1.gz" | grep -q '^\.TH JETGATE "1"' || fail "man page header"
zcat "$prefix/share/man/man1/jetgate.1.gz" | grep -q 'EXIT STATUS' || fail "man page EXIT STATUS"

# --- find_package(jetgate) from a consumer ----------------------------------------
mkdir -p "$tmp/consumer"
cat >"$tmp/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.18)
project(consumer CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(jetgate 0.1 REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE jetgate::core)
EOF
cat >"$tmp/consumer/main.cpp" <<'EOF'
#include <iostream>
#include "jetgate/facts/os_release.hpp"
int main() {
  auto os = jetgate::facts::parse_os_release("ID=ubuntu\nVERSION_ID=\"22.04\"\n");
  std::cout << os["ID"] << " " << os["VERSION_ID"] << "\n";
  return os["VERSION_ID"] == "22.04" ? 0 : 1;
}
EOF
if cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/consumer.log" 2>&1 &&
   cmake --build "$tmp/consumer/build" >>"$tmp/consumer.log" 2>&1 &&
   [ "$("$tmp/consumer/build/consumer")" = "ubuntu 22.04" ]; then
  echo "ok: find_package(jetgate) and jetgate::core"
else
  cat "$tmp/consumer.log"
  fail "a consumer project could not use the installed package"
fi

# --- CPack .deb --------------------------------------------------------------------
(cd "$build" && cpack -G DEB -B "$tmp/deb" >/dev/null)
runtime_deb=$(ls "$tmp"/deb/jetgate_*.deb 2>/dev/null | head -1)
dev_deb=$(ls "$tmp"/deb/jetgate-dev_*.deb 2>/dev/null | head -1)
[ -n "$runtime_deb" ] || fail "no jetgate_*.deb"
[ -n "$dev_deb" ] || fail "no jetgate-dev_*.deb"
if [ -n "$runtime_deb" ]; then
  contents=$(dpkg-deb -c "$runtime_deb")
  for f in ./usr/bin/jetgate ./usr/bin/jetgate-record-root ./usr/share/man/man1/jetgate.1.gz \
           ./usr/share/doc/jetgate/README.md; do
    grep -q " $f\$" <<<"$contents" && echo "ok: $(basename "$runtime_deb") has $f" ||
      fail "$(basename "$runtime_deb") lacks $f"
  done
  depends=$(dpkg-deb -f "$runtime_deb" Depends)
  echo "ok: $(basename "$runtime_deb") Depends: $depends"
  grep -q "libc6" <<<"$depends" || fail "the runtime package does not depend on libc6"
  if grep -qE "libstdc|yaml|pugixml|fmt|re2|sodium" <<<"$depends"; then
    fail "the runtime package depends on more than glibc: $depends"
  fi
fi
if [ -n "$dev_deb" ]; then
  contents=$(dpkg-deb -c "$dev_deb")
  for f in ./usr/lib/libjetgate_core.a ./usr/include/jetgate/facts/os_release.hpp \
           ./usr/lib/cmake/jetgate/jetgateConfig.cmake; do
    grep -q " $f\$" <<<"$contents" && echo "ok: $(basename "$dev_deb") has $f" ||
      fail "$(basename "$dev_deb") lacks $f"
  done
fi

if [ "$failures" -gt 0 ]; then
  echo "packaging: $failures check(s) failed"
  exit 1
fi
echo "packaging: all checks passed"
