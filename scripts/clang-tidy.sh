#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy: bugprone-* and performance-*) over src/ and prints
# the findings and their count per check. Exits 1 when there is any finding.
# Usage: scripts/clang-tidy.sh [FILE...]     (default: every src/**/*.cpp)
# BUILD_DIR (default build-tidy: configured here with clang, without precompiled
# headers, never built) and JOBS may be set.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-tidy}
jobs=${JOBS:-$(nproc)}
if [ ! -f "$build/compile_commands.json" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DJETGATE_WITH_CUDA=OFF -DJETGATE_MAN_PAGE=OFF \
    -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(git ls-files 'src/*.cpp'); fi
log="$build/clang-tidy.log"
printf '%s\n' "${files[@]}" |
  xargs -P "$jobs" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null >"$log" || true
# One finding per "file:line:col: warning: ... [check]" line, counted once.
findings=$(grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error): .*\[[a-z.,-]+\]$' "$log" | sort -u || true)
if [ -z "$findings" ]; then
  echo "clang-tidy: 0 findings in ${#files[@]} files"
  exit 0
fi
echo "$findings"
echo
echo "$findings" | grep -oE '\[[a-z.,-]+\]$' | sort | uniq -c | sort -rn
echo "clang-tidy: $(echo "$findings" | wc -l) findings in ${#files[@]} files (full output: $log)"
exit 1
