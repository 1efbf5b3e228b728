#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How jetgate's check, support and summary scale with the number of evidence
# files (issue 23, "Scale"; results in docs/architecture.md). For each N it
# generates N files (bench/gen_evidence.py, from docs/examples), signed when
# --signed, and prints in one table, each with its wall time and peak RSS
# (/usr/bin/time -v): the floors (reading the files; a bare simdjson parse;
# a bare nlohmann parse, on one thread and on every core) beside
# `jetgate check`, `jetgate support` and `jetgate summary`; then how each grows
# from the smallest N to the largest (time per file, x per 10x files).
#
# Usage: bench/evidence-scale.sh JETGATE [--signed] [--node-lanes] [--keep DIR]
#                                [--nlohmann-max N] [N...]
#   (from jetgate's checkout; N defaults to 1000 10000 100000; the nlohmann floor
#   runs up to --nlohmann-max files, 10000 by default, as it takes ~40 s at 100k;
#   --node-lanes: each runner's files record it as their board and lane, so a
#   runner's nights are one lane, as `jetgate run --node` writes them; without
#   it every directory is a lane of its own)
set -euo pipefail
jetgate=$(realpath "$1")
shift
signed=0 node_lanes=0 keep="" nlohmann_max=10000 sizes=()
while [ $# -gt 0 ]; do
  case $1 in
    --signed) signed=1 ;;
    --node-lanes) node_lanes=1 ;;
    --keep) keep=$2; shift ;;
    --nlohmann-max) nlohmann_max=$2; shift ;;
    *) sizes+=("$1") ;;
  esac
  shift
done
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
py=/usr/bin/python3  # python3-nacl, for --signed
[ -x /usr/bin/time ] || { echo "evidence-scale.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=${keep:-$(mktemp -d)}
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
cores=$(nproc)

floor=$work/evidence_floor
sj=()
if pkg-config --exists simdjson 2>/dev/null; then
  read -r -a sj <<<"-DWITH_SIMDJSON $(pkg-config --cflags --libs simdjson)"
fi
g++ -O2 -std=c++20 -o "$floor" bench/evidence_floor.cpp "${sj[@]}" -pthread

key=""
if [ $signed = 1 ]; then
  key=$work/bench.key
  [ -f "$key" ] || "$jetgate" keygen "$key" --owner bench >/dev/null
fi

results=$work/results.tsv
: >"$results"
# measure N NAME COMMAND...: one line "N NAME seconds peak_MB exit"
measure() {
  local n=$1 name=$2
  shift 2
  local log=$work/time.log
  local rc=0
  /usr/bin/time -v "$@" >"$work/out" 2>"$log" || rc=$?
  local wall rss
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log" |
    awk -F: '{ if (NF == 3) print $1*3600 + $2*60 + $3; else print $1*60 + $2 }')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
  printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$name" "$wall" "$((rss / 1024))" "$rc" >>"$results"
  printf '%8s  %-28s %8.2f s %8d MB  exit %s\n' "$n" "$name" "$wall" "$((rss / 1024))" "$rc"
}

printf '%8s  %-28s %10s %11s\n' files what wall "peak RSS"
for n in "${sizes[@]}"; do
  set_dir=$work/set-$n
  [ $signed = 1 ] && set_dir=$set_dir-signed
  [ $node_lanes = 1 ] && set_dir=$set_dir-nodes
  if [ ! -f "$set_dir/dirs.txt" ]; then
    args=("$set_dir" "$n")
    [ -n "$key" ] && args+=(--sign "$key")
    [ $node_lanes = 1 ] && args+=(--node-lanes)
    "$py" bench/gen_evidence.py "${args[@]}" >/dev/null
  fi
  mapfile -t dirs <"$set_dir/dirs.txt"
  evidence_args=()
  for d in "${dirs[@]}"; do evidence_args+=(--evidence-dir "$d"); done
  policy=$set_dir/policy.json
  # The page cache warm, as for every run after the first.
  find "$set_dir" -name '*.json' -exec cat {} + >/dev/null
  measure "$n" "floor: read (1 thread)" "$floor" read 1 "$set_dir/dirs.txt"
  measure "$n" "floor: read ($cores threads)" "$floor" read "$cores" "$set_dir/dirs.txt"
  if [ ${#sj[@]} -gt 0 ]; then
    measure "$n" "floor: simdjson (1 thread)" "$floor" simdjson 1 "$set_dir/dirs.txt"
    measure "$n" "floor: simdjson ($cores threads)" "$floor" simdjson "$cores" "$set_dir/dirs.txt"
  fi
  if [ "$n" -le "$nlohmann_max" ]; then
    measure "$n" "floor: nlohmann (1 thread)" "$floor" nlohmann 1 "$set_dir/dirs.txt"
  fi
  measure "$n" "jetgate check" "$jetgate" check --policy "$policy" "${evidence_args[@]}" \
    --candidate-sha 0000000000000000000000000000000000000000 --today 2026-11-29
  measure "$n" "jetgate support" "$jetgate" support --policy "$policy" "${evidence_args[@]}" \
    --today 2026-11-29
  measure "$n" "jetgate summary" "$jetgate" summary --policy "$policy" "${evidence_args[@]}" \
    --today 2026-11-29
done

# Growth: from the smallest N to the largest, per what was measured at both.
small=${sizes[0]} large=${sizes[${#sizes[@]}-1]}
if [ "$small" != "$large" ]; then
  echo
  echo "growth from $small to $large files (time x / files x; 1.00 is linear):"
  awk -F'\t' -v s="$small" -v l="$large" '
    $1 == s { ts[$2] = $3; ms[$2] = $4 }
    $1 == l { tl[$2] = $3; ml[$2] = $4; order[++k] = $2 }
    END {
      for (i = 1; i <= k; i++) { w = order[i]; if (!(w in ts) || ts[w] <= 0) continue
        printf "  %-28s time x%.1f (%.2f of linear), %.1f us/file at %d; RSS %d -> %d MB\n",
          w, tl[w] / ts[w], (tl[w] / ts[w]) / (l / s), tl[w] / l * 1e6, l, ms[w], ml[w] }
    }' "$results"
fi
