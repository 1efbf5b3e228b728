#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The packaging test: `cmake --install` of a build into a temporary prefix, a small
# project that uses the installed library through find_package(jetgate), and the
# .deb packages CPack makes, listed with dpkg-deb -c (and checked by lintian when it is
# installed). The subcommands come from the binary's own --help: each must have its
# man page and its bash completion. Fails on anything missing.
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
"$prefix/bin/jetgate" --version | head -1 | grep -Eq '^jetgate [0-9.]+ \((git [0-9a-f]{7}, (clean|dirty)|source [0-9a-f]{7,40}, set by the packager|source commit unknown)\)$' ||
  fail "--version does not name the source commit: $("$prefix/bin/jetgate" --version | head -1)"
expect_file "$prefix/share/doc/jetgate/LICENSE"
cmp -s "$prefix/share/doc/jetgate/LICENSE" LICENSE || fail "share/doc/jetgate/LICENSE is not LICENSE"
for doc in jetgate jetgate-dev; do
  expect_file "$prefix/share/doc/$doc/copyright"
  head -1 "$prefix/share/doc/$doc/copyright" |
    grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
    fail "share/doc/$doc/copyright is not in Debian's copyright format 1.0"
done
completion=$prefix/share/bash-completion/completions/jetgate
expect_file "$completion"

# The subcommands, as `jetgate --help` lists them (CLI11's "Subcommands:" section).
help_section() { awk -v s="$1" '$0 == s { on = 1; next } on && /^[^ ]/ { on = 0 } on'; }
mapfile -t subcommands < <("$prefix/bin/jetgate" --help | help_section "Subcommands:" | awk 'NF { print $1 }')
[ "${#subcommands[@]}" -ge 8 ] || fail "jetgate --help lists ${#subcommands[@]} subcommands: ${subcommands[*]}"
# Long and short options of a help text, as CLI11 prints them ("  -h,--help", "  --root TEXT",
# two spaces in, whichever group they are in).
help_options() { grep -oE '^  -[^ ]+' | tr ',' '\n' | sed 's/^ *//; s/=.*//'; }
man=$prefix/share/man/man1
# man pages: one per subcommand, with every option of its --help; jetgate.1 names them all.
jetgate_page=$(zcat "$man/jetgate.1.gz" | sed 's/\\-/-/g')
for sub in "${subcommands[@]}"; do
  page=$man/jetgate-$sub.1.gz
  expect_file "$page"
  [ -e "$page" ] || continue
  text=$(zcat "$page" | sed 's/\\-/-/g')
  grep -q "^\.TH JETGATE-${sub^^} \"1\"" <<<"$text" || fail "jetgate-$sub.1: no .TH JETGATE-${sub^^} header"
  while read -r opt; do
    grep -qF -- "$opt" <<<"$text" || fail "jetgate-$sub.1 lacks $opt (in jetgate $sub --help)"
  done < <("$prefix/bin/jetgate" "$sub" --help | help_options)
  grep -qF "jetgate-$sub" <<<"$jetgate_page" || fail "jetgate.1 does not name jetgate-$sub"
done
for page in "$man"/jetgate-*.1.gz; do
  sub=$(basename "$page" .1.gz); sub=${sub#jetgate-}
  printf '%s\n' "${subcommands[@]}" | grep -qx "$sub" || fail "man page $(basename "$page") for no subcommand"
done

# bash completion: what it offers, against --help (bash only; bash-completion not needed).
complete_words() {  # complete_words WORD... : COMPREPLY for the last word, one a line
  PATH="$prefix/bin:$PATH" bash -c 'source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _jetgate; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$completion" "$@" | sort -u
}
if [ -e "$completion" ]; then
  diff <(complete_words jetgate "") <(printf '%s\n' "${subcommands[@]}" | sort -u) >/dev/null ||
    fail "completion of 'jetgate ' is not the subcommands of --help: $(complete_words jetgate "" | tr '\n' ' ')"
  diff <(complete_words jetgate -) <("$prefix/bin/jetgate" --help | help_options | sort -u) >/dev/null ||
    fail "completion of 'jetgate -' is not the options of jetgate --help"
  for sub in "${subcommands[@]}"; do
    offered=$(complete_words jetgate "$sub" -)
    expected=$("$prefix/bin/jetgate" "$sub" --help | help_options | sort -u)
    if [ "$offered" = "$expected" ]; then
      echo "ok: completion of 'jetgate $sub -' ($(wc -l <<<"$offered") options)"
    else
      fail "completion of 'jetgate $sub -' differs from jetgate $sub --help: $(diff <(echo "$offered") <(echo "$expected") | grep '^[<>]' | tr '\n' ' ')"
    fi
    # An option with listed choices (CLI11: "--name TEXT:{a,b}") completes them.
    while read -r opt choices; do
      got=$(complete_words jetgate "$sub" "$opt" "" | tr '\n' ' ')
      want=$(tr ',' '\n' <<<"$choices" | sort -u | tr '\n' ' ')
      [ "$got" = "$want" ] || fail "completion of 'jetgate $sub $opt ' is '$got', not the choices '$want'"
    done < <("$prefix/bin/jetgate" "$sub" --help |
             sed -nE 's/^  (-[^ ,]+,)*(--[^ ,]+) [A-Z]+:\{([^}]*)\}.*/\2 \3/p')
  done
fi

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
  pages=(./usr/share/man/man1/jetgate.1.gz)
  for sub in "${subcommands[@]}"; do pages+=("./usr/share/man/man1/jetgate-$sub.1.gz"); done
  for f in ./usr/bin/jetgate ./usr/bin/jetgate-record-root "${pages[@]}" \
           ./usr/share/doc/jetgate/README.md ./usr/share/doc/jetgate/copyright \
           ./usr/share/bash-completion/completions/jetgate; do
    grep -q " $f\$" <<<"$contents" && echo "ok: $(basename "$runtime_deb") has $f" ||
      fail "$(basename "$runtime_deb") lacks $f"
  done
  # Debian's copyright file points to /usr/share/common-licenses/Apache-2.0; a second
  # copy of the text is lintian's extra-license-file.
  if grep -q "/LICENSE\$" <<<"$contents"; then fail "$(basename "$runtime_deb") has a LICENSE file"; fi
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
           ./usr/lib/cmake/jetgate/jetgateConfig.cmake ./usr/share/doc/jetgate-dev/copyright; do
    grep -q " $f\$" <<<"$contents" && echo "ok: $(basename "$dev_deb") has $f" ||
      fail "$(basename "$dev_deb") lacks $f"
  done
fi

# lintian, when installed: no copyright file is an error there (no-copyright-file).
# Its other findings are printed, not failed on (a CPack .deb has no changelog).
if command -v lintian >/dev/null && [ -n "$runtime_deb" ] && [ -n "$dev_deb" ]; then
  report=$(lintian --tag-display-limit 0 "$runtime_deb" "$dev_deb" 2>&1 || true)
  echo "lintian:"; sed 's/^/  /' <<<"$report"
  if grep -qE "no-copyright-file|copyright-.*dep5|dep5-copyright" <<<"$report"; then
    fail "lintian reports a copyright problem"
  else
    echo "ok: lintian reports no copyright problem"
  fi
else
  echo "note: lintian is not installed; the .deb packages were not linted"
fi

if [ "$failures" -gt 0 ]; then
  echo "packaging: $failures check(s) failed"
  exit 1
fi
echo "packaging: all checks passed"
