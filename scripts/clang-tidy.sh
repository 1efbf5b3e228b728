#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs clang-tidy (.clang-tidy: bugprone-* and performance-*) over src/ and prints
# the findings and their count per check. Exits 1 when there is any finding, and
# also when clang-tidy could not parse a file (a clang-diagnostic-error is a file
# that was not checked, never a clean one): the file is named with the first error.
# Usage: scripts/clang-tidy.sh [FILE...]     (default: every src/**/*.cpp)
# BUILD_DIR (default build-tidy: configured here with clang, without precompiled
# headers, never built) and JOBS may be set. CLANG_TIDY picks the binary (default
# clang-tidy, Debian 12's clang-tidy 14).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-tidy}
jobs=${JOBS:-$(nproc)}
tidy=${CLANG_TIDY:-clang-tidy}
command -v "$tidy" >/dev/null || { echo "clang-tidy.sh: $tidy not found (apt-get install clang-tidy)" >&2; exit 2; }
if [ ! -f "$build/compile_commands.json" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DJETGATE_WITH_CUDA=OFF -DJETGATE_MAN_PAGE=OFF \
    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DJETGATE_BUILD_TESTS=ON >/dev/null
fi
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files 'src/*.cpp'); fi
logs="$build/clang-tidy"
rm -rf "$logs"
mkdir -p "$logs"
# One clang-tidy per file, each with its own log, so that an error names the file
# whose parse failed (clang-tidy prints header diagnostics without the includer).
export tidy build logs
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} sh -c \
  'f="$1"; "$tidy" -p "$build" --quiet "$f" >"$logs/$(echo "$f" | tr / _).log" 2>&1 || true' _ {}
log="$build/clang-tidy.log"
cat "$logs"/*.log >"$log"
unparsed=0
for f in "${files[@]}"; do
  one="$logs/$(echo "$f" | tr / _).log"
  if grep -q '\[clang-diagnostic-error\]' "$one"; then
    echo "clang-tidy: could not parse $f: $(grep -m1 '\[clang-diagnostic-error\]' "$one")"
    unparsed=$((unparsed + 1))
  fi
done
# One finding per "file:line:col: warning: ... [check]" line, counted once.
findings=$(grep -hE '^[^ ].*:[0-9]+:[0-9]+: warning: .*\[[a-z.,-]+\]$' "$logs"/*.log | sort -u || true)
if [ -z "$findings" ] && [ "$unparsed" -eq 0 ]; then
  echo "clang-tidy: 0 findings in ${#files[@]} files"
  exit 0
fi
if [ -n "$findings" ]; then
  echo "$findings"
  echo
  echo "$findings" | grep -oE '\[[a-z.,-]+\]$' | sort | uniq -c | sort -rn
fi
echo "clang-tidy: $(printf '%s' "$findings" | grep -c . || true) findings and $unparsed files not parsed," \
  "of ${#files[@]} files (full output: $log)"
exit 1
