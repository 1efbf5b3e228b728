#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# One run on a CUDA machine (measured on an NVIDIA H200): jetgate's
# device-to-device bandwidth against a PyTorch tensor copy, jetgate's
# spin-mode round trip against a minimal CUDA C loop (ref_roundtrip.cu), and
# the wall time of the whole CUDA section with every probe. Prints the
# figures and the ratios against the targets (docs/probes.md).
#
# Usage: bench/compare_h200.sh [BIN_DIR]   (BIN_DIR holds jetgate_cuda_bench
#        and, if present, jetgate; default build/)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/../build}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv,noheader || true
lib=$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')
echo "libcuda: ${lib:-not in ldconfig}"
date -u +%Y-%m-%dT%H:%M:%SZ

echo "== build the CUDA C reference"
nvcc -O2 -o "$work/ref_roundtrip" "$here/ref_roundtrip.cu"

echo "== jetgate: every CUDA probe (wall time includes CUDA init in each child)"
"$bin/jetgate_cuda_bench" >"$work/jetgate.json"
echo "== jetgate: second run"
"$bin/jetgate_cuda_bench" >"$work/jetgate2.json"
if [[ -x "$bin/jetgate" ]] && "$bin/jetgate" probe --help 2>/dev/null | grep -q -- --cuda; then
  echo "== jetgate probe --cuda"
  s=$(date +%s.%N)
  "$bin/jetgate" probe --cuda >"$work/probe.txt" 2>&1 || echo "jetgate probe --cuda: exit status $?"
  e=$(date +%s.%N)
  cat "$work/probe.txt"
  python3 -c "print('jetgate probe --cuda wall: %.2f s' % ($e - $s))" | tee "$work/probe_wall.txt"
fi

echo "== PyTorch device-to-device copy"
python3 "$here/torch_copy.py" 512 4096 | tee "$work/torch.jsonl"

echo "== CUDA C round trip"
for mode in spin yield blocking_sync; do
  "$work/ref_roundtrip" "$mode" 2000 | tee -a "$work/ref.jsonl"
done

echo "== round trip side by side: jetgate sync_path alone, then the CUDA C loop, twice"
for i in 1 2; do
  "$bin/jetgate_cuda_bench" sync_path 2>/dev/null >"$work/sync_alone$i.json"
  "$work/ref_roundtrip" spin 2000 >"$work/ref_alone$i.json"
done

echo "== comparison"
python3 - "$work" <<'PY'
import json, sys, os
work = sys.argv[1]
runs = [json.load(open(os.path.join(work, f))) for f in ("jetgate.json", "jetgate2.json")]
torch = [json.loads(l) for l in open(os.path.join(work, "torch.jsonl"))]
ref = {r["mode"]: r for r in map(json.loads, open(os.path.join(work, "ref.jsonl")))}
def val(run, probe, key):
    for p in run["probes"]:
        if p["id"] == probe:
            return p["values"].get(key, {}).get("value")
torch512 = next(t["torch_d2d_gbps"] for t in torch if t["buffer_mib"] == 512)
torch_best = max(t["torch_d2d_gbps"] for t in torch)
for i, run in enumerate(runs, 1):
    d2d = val(run, "bandwidth", "d2d_gbps")
    print(f"run {i}: jetgate d2d {d2d:.0f} GB/s (copy engine {val(run, 'bandwidth', 'd2d_copy_engine_gbps'):.0f}, "
          f"SM kernel {val(run, 'bandwidth', 'd2d_sm_copy_gbps'):.0f}); torch 512 MiB {torch512:.0f}, "
          f"torch best {torch_best:.0f} GB/s; ratio to torch 512 MiB {d2d / torch512:.3f} "
          f"(target >= 0.97), to torch best {d2d / torch_best:.3f}")
    for mode in ("spin", "yield", "blocking_sync"):
        j = val(run, "sync_path", f"sync_{mode}_rtt_median_us")
        c = val(run, "sync_path", f"sync_{mode}_cpu_fraction")
        print(f"run {i}: {mode:14s} jetgate median {j:.2f} us, CUDA C {ref[mode]['median_us']:.2f} us, "
              f"ratio {j / ref[mode]['median_us']:.3f}; wait CPU {c * 100:.1f}% of a core")
    print(f"run {i}: spin ratio target <= 1.10; wall {run['wall_s']:.2f} s (target < 3 s)")
    print(f"run {i}: statuses " + ", ".join(f"{p['id']}={p['status']} ({p['duration_ms']:.0f} ms)" for p in run["probes"]))
for i in (1, 2):
    alone = json.load(open(os.path.join(work, f"sync_alone{i}.json")))
    ref_spin = json.load(open(os.path.join(work, f"ref_alone{i}.json")))["median_us"]
    j = val(alone, "sync_path", "sync_spin_rtt_median_us")
    print(f"side by side {i}: spin jetgate {j:.2f} us, CUDA C {ref_spin:.2f} us, ratio {j / ref_spin:.3f} (target <= 1.10)")
PY
