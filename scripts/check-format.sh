#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that every C, C++ and CUDA source in git is formatted as .clang-format says
# (clang-format from Debian 12), except recorded test data. Lists the files that are not, and how to fix them.
# Usage: scripts/check-format.sh [--fix]   (--fix rewrites them in place)
set -euo pipefail
cd "$(dirname "$0")/.."
# tests/fixtures holds recorded files (NVIDIA's headers among them) that must stay byte-exact.
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' '*.cu' '*.cuh' ':!:tests/fixtures/**')
if [ "${1:-}" = --fix ]; then
  clang-format -i "${files[@]}"
  exit 0
fi
# One clang-format process for all files; it names each file it would change.
mapfile -t bad < <(clang-format --dry-run "${files[@]}" 2>&1 |
                   sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' |
                   sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  printf '  %s\n' "${bad[@]}"
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not clang-formatted;" \
       "run scripts/check-format.sh --fix and commit the result"
  exit 1
fi
echo "check-format: all ${#files[@]} files are clang-formatted"
