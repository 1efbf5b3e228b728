#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the libFuzzer targets (tests/fuzz, built by scripts/test-sanitizers.sh with
# ASan and UBSan) one after another, each seeded from tests/fixtures, and fails on
# the first crash, leak, timeout or sanitizer report. A crashing input is kept in
# BUILD_DIR/fuzz-artifacts/; add it to a regression test.
#
# Each target also starts from its corpus kept in the repository,
# tests/fuzz/corpus/TARGET/ (when there is one), so a later run continues
# from what an earlier long run found.
#
# Usage: scripts/fuzz.sh [--time SECONDS] [--runs N] [--jobs J] [--workers W] [--timeout S]
#                        [--keep-corpus]
#                        [TARGET...]
#   --time     stop each target after SECONDS (default 60, what CI runs)
#   --runs     stop each target after N executions instead (e.g. 10000000)
#   --keep-corpus  afterwards merge what the run found into tests/fuzz/corpus/TARGET/
#              (libFuzzer's -merge=1: only inputs that add coverage); commit the result
#   --jobs     targets run at once (default 1); each target is one process
#   --workers  processes per target (default 1): W libFuzzer jobs sharing one corpus,
#              each with its own seed; --runs is the total over them (each runs N/W)
#   --timeout  one input running S seconds is a hang (default 10); the limit is
#              wall-clock time, so raise it when other work shares the cores
#   TARGET     e.g. fuzz_junit; default: every fuzz_* in BUILD_DIR/tests/fuzz
# BUILD_DIR defaults to build-clang. Prints one line per target: executions,
# coverage (libFuzzer's cov: edges) and features.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-clang}
time_s=60
runs=-1
jobs=1
workers=1
timeout_s=10
keep_corpus=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s=$2; shift ;;
    --runs) runs=$2; time_s=0; shift ;;
    --jobs) jobs=$2; shift ;;
    --workers) workers=$2; shift ;;
    --timeout) timeout_s=$2; shift ;;
    --keep-corpus) keep_corpus=1 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
# A whole number at least MIN, or exit 2 naming the option.
need_number() {
  case $2 in
    ''|*[!0-9]*) echo "fuzz.sh: $1 takes a whole number, not '$2'" >&2; exit 2 ;;
  esac
  if [ "$2" -lt "$3" ]; then echo "fuzz.sh: $1 must be at least $3, not $2" >&2; exit 2; fi
}
# --runs sets time_s to 0 (no time limit); without it the time must be set.
if [ "$runs" = -1 ]; then need_number --time "$time_s" 1; fi
need_number --jobs "$jobs" 1
need_number --workers "$workers" 1
need_number --timeout "$timeout_s" 1
[ "$runs" = -1 ] || need_number --runs "$runs" 1
fuzz_dir="$build/tests/fuzz"
if [ ! -d "$fuzz_dir" ]; then
  echo "fuzz.sh: $fuzz_dir does not exist; build the targets first (scripts/test-sanitizers.sh," \
    "or scripts/fuzz-long.sh for the optimised build)" >&2
  exit 2
fi
if [ ${#targets[@]} -eq 0 ]; then
  for t in "$fuzz_dir"/fuzz_*; do [ -x "$t" ] && targets+=("$(basename "$t")"); done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz targets in $fuzz_dir; run scripts/test-sanitizers.sh first" >&2
  exit 2
fi
for t in "${targets[@]}"; do
  if [ ! -x "$fuzz_dir/$t" ]; then
    echo "fuzz.sh: no fuzz target '$t' in $fuzz_dir; there are: $(cd "$fuzz_dir" && echo fuzz_*)" >&2
    exit 2
  fi
done

# Seed files per target, from the recorded machines and the test data.
seeds_for() {
  local f=tests/fixtures
  case "$1" in
    fuzz_nv_tegra_release) ls $f/*/root/etc/nv_tegra_release ;;
    fuzz_os_release) ls $f/*/root/etc/os-release $f/*/root/usr/lib/os-release ;;
    fuzz_device_tree) find -L $f/*/root -path '*device-tree*' -type f \
                        \( -name compatible -o -name 'nvidia,boardids' -o -name model \) ;;
    fuzz_proc_modules) ls $f/*/root/proc/modules ;;
    fuzz_module_provenance) ls $f/*/root/proc/modules $f/*/root/lib/modules/*/modules.dep \
                              $f/*/root/sys/module/*/taint $f/*/root/jetgate-kernel-log.txt ;;
    fuzz_dpkg_status) ls $f/*/root/var/lib/dpkg/status ;;
    fuzz_cdi_yaml) find $f/*/root/etc/cdi $f/*/root/var/run/cdi -type f ;;
    fuzz_root_json) ls $f/*/root/jetgate-root.json ;;
    fuzz_policy) find $f/gates $f/claims docs/examples data -name '*.json' -size -64k ;;
    fuzz_evidence) find $f/claims $f/gates docs/examples -name '*.json' -size -64k ;;
    fuzz_history_ingest) find $f/claims $f/gates docs/examples -name '*.json' -size -64k ;;
    fuzz_modinfo) ls $f/modules/*.ko ;;
    fuzz_json_fast) find $f/claims $f/gates docs/examples data -name '*.json' -size -64k ;;
    fuzz_junit) find $f/gates $f/claims -name '*.xml' -size -256k ;;
    fuzz_readme_block) find $f/claims -name '*.md'; echo README.md ;;
    fuzz_sanitize) ls $f/*/SOURCE.md; find $f/python -type f -size -64k ;;
    fuzz_dsse_envelope) envelope_seeds ;;
    fuzz_prometheus) find $f/claims docs/examples -name '*.json' -size -64k ;;
    fuzz_nfd_features) find $f/claims docs/examples -name '*.json' -size -64k ;;
    fuzz_html_escape) ls $f/*/SOURCE.md; find $f/python -type f -size -64k ;;
  esac 2>/dev/null || true
}

# The envelopes, and the statements inside them: the target also signs its input
# as a statement, and a statement is what reaches the checks behind the signature.
envelope_seeds() {
  local e out="$corpus_root/fuzz_dsse_envelope.statements"
  mkdir -p "$out"
  find tests/fixtures/trust -name '*.dsse.json' -size -64k | while IFS= read -r e; do
    echo "$e"
    sed -n 's/.*"payload": *"\([A-Za-z0-9+\/=]*\)".*/\1/p' "$e" | base64 -d \
      >"$out/$(basename "$e" .dsse.json).statement.json" &&
      echo "$out/$(basename "$e" .dsse.json).statement.json"
  done
}

corpus_root="$build/fuzz-corpus"
artifacts="$build/fuzz-artifacts"
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local t=$1 corpus="$corpus_root/$1" seeds="$corpus_root/$1.seeds" log="$build/fuzz-$1.log"
  mkdir -p "$corpus" "$seeds"
  local s
  while IFS= read -r s; do
    [ -f "$s" ] && cp -f -- "$s" "$seeds/$(printf '%s' "$s" | md5sum | cut -c1-16)"
  done < <(seeds_for "$t")
  local limits=(-runs="$runs")
  [ "$time_s" != 0 ] && limits+=(-max_total_time="$time_s")
  # -timeout: one input taking that long is a hang; -rss_limit_mb: a blow-up is a bug.
  # The sanitizer works line by line on lines of at most 4096 bytes (kMaxSanitizedLine):
  # inputs of one or a few lines reach all of it, and longer ones only slow it down.
  local max_len=65536
  [ "$t" = fuzz_sanitize ] && max_len=8192
  local kept="tests/fuzz/corpus/$t" dirs=("$corpus" "$seeds")
  [ -d "$kept" ] && dirs+=("$kept")
  local status=0
  if [ "$workers" -gt 1 ]; then
    # libFuzzer's -jobs: W processes, each writing fuzz-JOB.log in its working
    # directory and adding what it finds to the first corpus directory.
    local jobdir="$build/fuzz-$t.jobs" abs=() d
    rm -rf "$jobdir"
    mkdir -p "$jobdir"
    for d in "${dirs[@]}"; do abs+=("$(realpath "$d")"); done
    local bin_abs art_abs
    bin_abs=$(realpath "$fuzz_dir/$t")
    art_abs=$(realpath "$artifacts")
    local per=$(( runs > 0 ? (runs + workers - 1) / workers : -1 ))
    limits=(-runs="$per")
    [ "$time_s" != 0 ] && limits+=(-max_total_time="$time_s")
    (cd "$jobdir" && nice -n 10 "$bin_abs" "${limits[@]}" -timeout="$timeout_s" \
      -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
      -artifact_prefix="$art_abs/$t-" -jobs="$workers" -workers="$workers" \
      "${abs[@]}") >"$log" 2>&1 || status=1
    # A job that crashed says so in its own log, whatever the parent's status.
    if grep -lE '^==[0-9]+==ERROR|^SUMMARY: |ERROR: libFuzzer' "$jobdir"/fuzz-*.log >/dev/null 2>&1; then
      status=1
    fi
    # (libFuzzer's parent copies each job's log into its own output: $log has them all.)
  else
    nice -n 10 "$fuzz_dir/$t" "${limits[@]}" -timeout="$timeout_s" -rss_limit_mb=2048 \
      -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
      "${dirs[@]}" >"$log" 2>&1 || status=1
  fi
  if [ "$status" != 0 ]; then
    echo "FAIL $t: see $log; inputs in $artifacts"
    tail -n 40 "$log"
    return 1
  fi
  local execs cov ft
  # One process, or the sum over the workers (each prints its own final stats).
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ n += $1 } END { print n }')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | cut -d' ' -f2 | sort -n | tail -1)
  ft=$(grep -oE 'ft: [0-9]+' "$log" | cut -d' ' -f2 | sort -n | tail -1)
  local rate
  # Executions per second of one process (the mean over the workers).
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | awk '{ n += $1; k++ } END { if (k) printf "%d", n / k }')
  echo "ok   $t: ${execs:-?} executions (${rate:-?}/s per process, $workers process(es)), coverage ${cov:-?} edges, ${ft:-?} features"
  if [ "$keep_corpus" = 1 ]; then
    mkdir -p "$kept"
    local before after
    before=$(find "$kept" -type f | wc -l)
    nice -n 10 "$fuzz_dir/$t" -merge=1 -max_len="$max_len" -timeout="$timeout_s" \
      -rss_limit_mb=2048 "$kept" "$corpus" "$seeds" >"$build/fuzz-$t.merge.log" 2>&1 || {
      echo "FAIL $t: merging into $kept: see $build/fuzz-$t.merge.log"
      return 1
    }
    after=$(find "$kept" -type f | wc -l)
    echo "     $t: corpus $kept: $before -> $after files"
  fi
}
export -f run_one seeds_for envelope_seeds
export build fuzz_dir corpus_root artifacts runs time_s timeout_s keep_corpus workers

printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
