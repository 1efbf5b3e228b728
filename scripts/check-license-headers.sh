#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The licence header of every tracked source file (CONTRIBUTING.md): one line
#   // SPDX-License-Identifier: Apache-2.0      (.cpp .hpp .cu .c .h)
#   # SPDX-License-Identifier: Apache-2.0       (.cmake CMakeLists.txt .sh .py)
# as the first line, or right after a shebang line (and after a Python encoding
# declaration, which PEP 263 wants on line 1 or 2). See https://spdx.dev/learn/handling-license-info/
#
# Usage: scripts/check-license-headers.sh          list the files without it; exit 1 if any
#        scripts/check-license-headers.sh --fix    add it to those files; exit 0
# Looks at the files git tracks under src tests bench scripts cmake, except
# tests/fixtures: recorded machine files (NVIDIA's headers among them) and fixture
# projects are test input, byte for byte, not jetgate's source. A file that names a
# different SPDX licence is reported and never changed. Exit 2: usage, or not a git checkout.
set -euo pipefail

usage() {
  echo "usage: scripts/check-license-headers.sh [--fix]"
  echo "  without --fix: list the source files lacking the SPDX line, exit 1 if any"
  echo "  --fix: add the line to them"
}
fix=0
case "${1-}" in
  "") ;;
  --fix) fix=1 ;;
  -h | --help) usage; exit 0 ;;
  *) echo "check-license-headers: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "check-license-headers: one argument at most" >&2; usage >&2; exit 2; }

cd "$(dirname "$0")/.."
if ! top=$(git rev-parse --show-toplevel 2>/dev/null); then
  echo "check-license-headers: $(pwd) is not a git checkout (the file list comes from git ls-files)" >&2
  exit 2
fi
cd "$top"

spdx='SPDX-License-Identifier: Apache-2.0'
missing=0 fixed=0 foreign=0

# Sets lead to the comment leader of a file, or to nothing when the file is not a source
# file. A variable, not $(...): a subshell per file cost 40 s over the fuzz corpora.
leader() {
  lead=
  case "$1" in
    tests/fixtures/*) ;;
    *.cpp | *.hpp | *.cu | *.c | *.h) lead='//' ;;
    *.cmake | */CMakeLists.txt | CMakeLists.txt | *.sh | *.py) lead='#' ;;
  esac
}

# How many leading lines stay above the header: a shebang, then a PEP 263 encoding line.
skip_lines() {
  local first second
  first=$(sed -n 1p "$1") second=$(sed -n 2p "$1")
  if [[ $first == '#!'* ]]; then
    if [[ $2 == *.py && $second =~ ^[[:space:]]*#.*coding[:=] ]]; then echo 2; else echo 1; fi
  elif [[ $2 == *.py && $first =~ ^[[:space:]]*#.*coding[:=] ]]; then
    echo 1
  else
    echo 0
  fi
}

while IFS= read -r -d '' f; do
  leader "$f"
  [ -n "$lead" ] || continue
  # Tracked but deleted or moved in the work tree, or a link: nothing to read here.
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  skip=$(skip_lines "$f" "$f")
  header=$(sed -n "$((skip + 1))p" "$f" | tr -d '\r')
  [ "$header" = "$lead $spdx" ] && continue
  if other=$(head -n 10 "$f" | grep -m1 -o 'SPDX-License-Identifier:.*'); then
    echo "$f: names another licence ($other); left alone" >&2
    foreign=$((foreign + 1))
    continue
  fi
  if [ "$fix" = 1 ]; then
    tmp=$(mktemp)
    {
      head -n "$skip" "$f"
      # A shebang line without a newline (the whole file) still needs one before the header.
      if [ "$skip" -gt 0 ] && [ "$(head -n "$skip" "$f" | tail -c1 | od -An -c | tr -d ' ')" != '\n' ]; then
        echo
      fi
      echo "$lead $spdx"
      tail -n "+$((skip + 1))" "$f"
    } >"$tmp"
    # Rewrite in place, so the file keeps its mode (scripts stay executable).
    cat "$tmp" >"$f"
    rm -f "$tmp"
    echo "added: $f"
    fixed=$((fixed + 1))
  else
    echo "$f"
    missing=$((missing + 1))
  fi
done < <(git ls-files -z -- src tests bench scripts cmake)

if [ "$fix" = 1 ]; then
  echo "check-license-headers: added the SPDX line to $fixed file(s)" >&2
  exit 0
fi
if [ "$missing" -gt 0 ]; then
  echo "check-license-headers: $missing file(s) above lack '$spdx' (scripts/check-license-headers.sh --fix adds it)" >&2
  exit 1
fi
[ "$foreign" -gt 0 ] || echo "check-license-headers: every source file has the SPDX line" >&2
exit 0
