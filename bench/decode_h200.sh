#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The decode probe on a CUDA machine (made for the lent NVIDIA H200), in one
# command and one run, from the repository root:
#
#   bench/decode_h200.sh [OUTDIR]        (OUTDIR: default $OUT, else build/decode-out)
#
# 1. binaries: BIN_DIR (default build) must hold jetgate,
#    tests/jetgate_tests and tests/jetgate_decode_bench. GPU hosts usually
#    lack the Debian dev packages jetgate builds against, so they are built
#    on the development machine and carried (bench/decode_carry.sh prints
#    the paths). Without them the script tries to build them here, kernels
#    for sm_90 only (-DJETGATE_WANTED_ARCHS=90).
# 2. GPU tests: jetgate_tests --gtest_filter='*Gpu*:*Decode*' (the decode
#    kernels against the CPU reference, both launch modes; the other probes).
# 3. jetgate probe --decode --json for qwen2.5-0.5b fp16 and llama-3.2-1b bf16
#    (then the default preset as text, what a user sees).
# 4. references measured in the same run (bench/decode_torch_peers.py):
#    PyTorch's own read bandwidth over as many bytes as the model's weights
#    (torch_read), a plain PyTorch decode step of the same shapes replayed
#    from a CUDA graph (torch_graph), transformers' generate() with a static
#    and the dynamic cache (hf_static, hf_eager; random weights, no download).
# 5. jetgate_decode_bench variants (launch mode, L2 prefetch window, the
#    synchronisation only, phase times) and an Nsight Compute profile of
#    one token, as time allows.
# 6. summary: tok/s and the ratios to each reference (docs/probes.md, "Reading
#    bench/decode_h200.sh"), printed and written to summary.json.
#
# Everything lands in OUTDIR, at most 8 files: run.log (all console output,
# the summary at its end), gpu_tests.log, probe-<model>.json (2),
# peers.jsonl, sweep.jsonl, ncu.txt, summary.json. Every stage has a time
# limit and the whole run stays under DECODE_BUDGET_S (default 450 s); a stage
# that would not fit is skipped and says so. Environment: BIN_DIR,
# DECODE_BUDGET_S, DECODE_STAGES (comma list of
# tests,probe,peers,sweep,profile; default all).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cd "$root" || exit 2
out=${1:-${OUT:-build/decode-out}}
bin=${BIN_DIR:-build}
budget=${DECODE_BUDGET_S:-450}
stages=${DECODE_STAGES:-tests,probe,peers,sweep,profile}
models=("qwen2.5-0.5b fp16" "llama-3.2-1b bf16")
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/run.log") 2>&1
tee_pid=$!
start=$(date +%s)
has() { [[ ",$stages," == *",$1,"* ]]; }
left() { echo $((budget - ($(date +%s) - start))); }
ms() { echo $(($(date +%s%N) / 1000000)); }
# fits SECONDS: true when a stage that may take SECONDS still fits the budget.
fits() {
  if (($(left) < $1)); then
    echo "(skipped: $(left) s of the ${budget} s budget left, the stage may take $1 s)"
    return 1
  fi
}
# limit SECONDS: a stage's time limit, never past the budget (and never 0,
# which would mean no limit to timeout).
limit() {
  local l
  l=$(left)
  l=$((l < $1 ? l : $1))
  echo $((l > 1 ? l : 1))
}
export PYTHONUNBUFFERED=1

echo "== machine ($(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tail -1

echo "== binaries ($bin)"
need=("$bin/jetgate" "$bin/tests/jetgate_decode_bench")
has tests && need+=("$bin/tests/jetgate_tests")
missing=0
for f in "${need[@]}"; do [[ -x "$f" ]] || missing=1; done
if ((missing)); then
  echo "not all of ${need[*]} are here: building them (kernels for sm_90 only)"
  t0=$(ms)
  log=$(mktemp)
  if cmake -S . -B "$bin" -DCMAKE_BUILD_TYPE=Release -DJETGATE_WANTED_ARCHS=90 >"$log" 2>&1 &&
    cmake --build "$bin" -j"$(nproc)" --target jetgate jetgate_tests jetgate_decode_bench \
      fake_cuda fake_cuda_no_launch >>"$log" 2>&1; then
    echo "built in $(($(ms) - t0)) ms"
  else
    tail -40 "$log"
    echo "BUILD FAILED: this machine cannot build jetgate (see above; usually missing dev"
    echo "packages). Build on the development machine with bench/decode_carry.sh and carry"
    echo "the paths it prints."
    exit 2
  fi
fi
# The test binary holds absolute paths of the tree it was built in (fixtures,
# the fake driver libraries): where that tree is not here, point it here.
if [[ -f "$bin/source_dir" ]]; then
  src=$(cat "$bin/source_dir")
  if [[ "$src" != "$root" && ! -e "$src" ]]; then
    mkdir -p "$(dirname "$src")" && ln -s "$root" "$src" && echo "linked $src -> $root"
  fi
fi
ls -l "${need[@]}"

if has tests && fits 120; then
  echo "== GPU tests: jetgate_tests --gtest_filter='*Gpu*:*Decode*'"
  t0=$(ms)
  tmp=$(mktemp -d)
  JETGATE_TEST_TMP=$tmp timeout "$(limit 180)" "$bin/tests/jetgate_tests" \
    --gtest_filter='*Gpu*:*Decode*' >"$out/gpu_tests.log" 2>&1
  echo "gtest exit $? in $(($(ms) - t0)) ms"
  grep -E '^\[ +OK \] (DecodeGpu|CudaGpu)|^\[  (FAILED|SKIPPED|PASSED)  \] |launch "|: Failure|Expected|Which is|actual' \
    "$out/gpu_tests.log" | head -60
fi

if has probe; then
  echo "== jetgate probe --decode"
  first_rc=
  for m in "${models[@]}"; do
    read -r model dtype <<<"$m"
    fits 30 || continue
    t0=$(ms)
    timeout "$(limit 90)" "$bin/jetgate" probe --decode --model "$model" --dtype "$dtype" --json \
      >"$out/probe-$model.json"
    rc=$?
    first_rc=${first_rc:-$rc}
    echo "probe --decode --model $model --dtype $dtype: exit $rc in $(($(ms) - t0)) ms"
  done
  # The text form only when the first preset decoded (a hang costs a minute).
  if [[ "$first_rc" == 0 ]] && fits 30; then
    t0=$(ms)
    timeout "$(limit 60)" "$bin/jetgate" probe --decode
    echo "probe --decode (default, text): exit $? in $(($(ms) - t0)) ms"
  fi
fi

if has peers; then
  echo "== references: torch read bandwidth, PyTorch CUDA-graph step, transformers"
  for m in "${models[@]}"; do
    fits 60 || continue
    # shellcheck disable=SC2086
    timeout "$(limit 150)" python3 "$here/decode_torch_peers.py" $m | tee -a "$out/peers.jsonl"
  done
fi

if has sweep; then
  echo "== jetgate decode kernels, variants (launch:blocks_per_sm:prefetch_window_MiB[:flags: 1 = synchronisation only, 2 = phase times])"
  for m in "${models[@]}"; do
    fits 45 || continue
    # shellcheck disable=SC2086
    timeout "$(limit 90)" "$bin/tests/jetgate_decode_bench" $m --tokens 256 \
      --variant graph:1:0 --variant persistent:1:0 --variant persistent:1:0:1 \
      --variant persistent:1:8 --variant persistent:1:0:2 | tee -a "$out/sweep.jsonl"
  done
fi

if has profile && fits 60; then
  echo "== Nsight Compute: one token of qwen2.5-0.5b fp16 (persistent kernel)"
  if command -v ncu >/dev/null; then
    timeout "$(limit 120)" ncu --clock-control none -k jetgate_decode_token --launch-skip 4 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
      --section LaunchStats --section Occupancy \
      "$bin/tests/jetgate_decode_bench" qwen2.5-0.5b fp16 --profile 6 --variant persistent:1:0 \
      >"$out/ncu.txt" 2>&1
    echo "ncu: exit $?"
    grep -E 'Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued' \
      "$out/ncu.txt" | head -20
  else
    echo "ncu not found"
  fi
fi

echo "== summary ($(($(date +%s) - start)) s)"
python3 "$here/decode_summary.py" "$out"
echo "summary: exit $?; total $(($(date +%s) - start)) s"
# Let tee finish run.log before the machine collects OUTDIR.
exec >&- 2>&-
wait "$tee_pid"
