#!/usr/bin/env bash
# The decode probe on a CUDA machine (measured on an NVIDIA H200), side by
# side in one run: jetgate's GPU correctness tests, its decode kernels in
# variants (launch mode, L2 prefetch), `jetgate probe --decode` for
# Qwen2.5-0.5B fp16 and Llama-3.2-1B bf16 (wall time included), the peers on
# the same shapes with random weights (a PyTorch decode step replayed from a
# CUDA graph, transformers eager and static cache: decode_torch_peers.py),
# and an Nsight Compute profile of one token. Prints a table of tok/s, the
# share of the read bound and the ratio to each peer.
#
# Usage: bench/decode_h200.sh BIN_DIR OUTDIR [STAGES]
#   BIN_DIR holds jetgate, jetgate_tests and jetgate_decode_bench;
#   STAGES: comma list of tests,sweep,probe,peers,profile (default: all).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$1
out=$2
stages=${3:-tests,sweep,probe,peers,profile}
mkdir -p "$out"
has() { [[ ",$stages," == *",$1,"* ]]; }
ms() { echo $(($(date +%s%N) / 1000000)); }
export PYTHONUNBUFFERED=1
models=("qwen2.5-0.5b fp16" "llama-3.2-1b bf16")

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader || true
lib=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
echo "libcuda: ${lib:-not in ldconfig}"
if [[ -n "$lib" ]] && command -v nm >/dev/null; then
  nm -D "$lib" | grep -wE 'cuGraphInstantiate|cuStreamBeginCapture_v2|cuLaunchCooperativeKernel|cuOccupancyMaxActiveBlocksPerMultiprocessor' || true
fi
date -u +%Y-%m-%dT%H:%M:%SZ

if has tests; then
  echo "== GPU tests (decode against the CPU reference; the other probes)"
  t0=$(ms)
  "$bin/jetgate_tests" --gtest_filter='DecodeGpu.*:CudaGpu.*' >"$out/gpu_tests.log" 2>&1
  echo "gtest exit $? in $(($(ms) - t0)) ms"
  grep -E '^\[( +OK|  FAILED|  SKIPPED) |: launch |Failure|Expected|Which is|actual' "$out/gpu_tests.log" | head -60
fi

if has sweep; then
  echo "== jetgate decode kernels, variants (launch:blocks_per_sm:prefetch_window_MiB[:1 = barriers only])"
  for m in "${models[@]}"; do
    # shellcheck disable=SC2086
    "$bin/jetgate_decode_bench" $m --tokens 256 \
      --variant persistent:1:0:1 --variant persistent:1:0 --variant persistent:1:8 \
      --variant persistent:1:16 --variant persistent:1:24 --variant persistent:1:32 \
      --variant graph:1:0 --variant graph:1:16 \
      | tee -a "$out/sweep.jsonl"
  done
fi

if has probe; then
  echo "== jetgate probe --decode"
  for m in "${models[@]}"; do
    read -r model dtype <<<"$m"
    t0=$(ms)
    "$bin/jetgate" probe --decode --model "$model" --dtype "$dtype" --json >"$out/probe-$model.json" 2>"$out/probe-$model.stderr"
    echo "probe --decode --model $model --dtype $dtype: exit $? in $(($(ms) - t0)) ms" | tee -a "$out/probe_wall.txt"
  done
  t0=$(ms)
  "$bin/jetgate" probe --decode
  echo "probe --decode (default, text): exit $? in $(($(ms) - t0)) ms" | tee -a "$out/probe_wall.txt"
fi

if has peers; then
  echo "== peers: PyTorch CUDA-graph step, transformers eager and static cache"
  for m in "${models[@]}"; do
    # shellcheck disable=SC2086
    python3 "$here/decode_torch_peers.py" $m | tee -a "$out/peers.jsonl"
  done
fi

if has profile; then
  echo "== Nsight Compute: one token of qwen2.5-0.5b fp16 (persistent kernel; graph kernels)"
  if command -v ncu >/dev/null; then
    ncu --clock-control none -k jetgate_decode_token --launch-skip 4 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      "$bin/jetgate_decode_bench" qwen2.5-0.5b fp16 --profile 6 --variant persistent:1:${NCU_WINDOW:-0} \
      >"$out/ncu_persistent.txt" 2>&1
    echo "ncu persistent: exit $?"
    grep -E 'Duration|DRAM Throughput|Memory Throughput|Registers|Achieved Occupancy' "$out/ncu_persistent.txt" | head -20
    ncu --clock-control none -k jetgate_decode_phase --launch-skip 610 --launch-count 122 \
      --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      "$bin/jetgate_decode_bench" qwen2.5-0.5b fp16 --profile 6 --variant graph:1:0 \
      >"$out/ncu_graph.csv" 2>&1
    echo "ncu graph: exit $?"
  else
    echo "ncu not found"
  fi
fi

echo "== summary"
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def lines(name):
    p = os.path.join(out, name)
    return [json.loads(l) for l in open(p) if l.startswith("{")] if os.path.exists(p) else []
sweep, peers = lines("sweep.jsonl"), lines("peers.jsonl")
for s in sweep:
    print(f"kernels {s['model']:14s} {s['dtype']} {s['launch']:10s} bps={s['blocks_per_sm']} "
          f"window={s['prefetch_mib']:3d}MiB flags={s.get('bench_flags', 0)}: {s['tok_s']:7.0f} tok/s ({s['fraction_of_bound']*100:4.1f}% of "
          f"{s['bound_tok_s']:.0f}), burst {s['burst_tok_s']:.0f}, p99 {s['p99_us']:.0f} us")
for path in sorted(glob.glob(os.path.join(out, "probe-*.json"))):
    try:
        doc = json.load(open(path))
    except ValueError:
        print(f"{path}: unreadable"); continue
    d = doc.get("probes", {}).get("decode")
    if not d:
        print(f"{path}: no decode result"); continue
    v = {k: x["value"] for k, x in d["values"].items()}
    model, dtype = d["details"].get("model"), d["details"].get("dtype")
    print(f"probe {model} {dtype}: {d['status']} {d['duration_ms']:.0f} ms: {d['reason']}")
    tok = v.get("decode_tok_s", 0)
    target = {"qwen2.5-0.5b": 0.50, "llama-3.2-1b": 0.65}.get(model)
    frac = v.get("decode_fraction_of_bound", 0)
    print(f"  {tok:.0f} tok/s = {frac*100:.1f}% of the {v.get('decode_bound_tok_s', 0):.0f} tok/s bound"
          + (f" (target {target*100:.0f}%: {'met' if frac >= target else 'MISSED by %.1f points' % ((target-frac)*100)})" if target else ""))
    for p in peers:
        if p.get("model") == model and "tok_s" in p:
            print(f"  vs {p['peer']:12s} {p['tok_s']:8.1f} tok/s: jetgate is {tok / p['tok_s']:.1f}x")
        elif p.get("model") == model:
            print(f"  {p['peer']}: {p.get('error')}")
PY
