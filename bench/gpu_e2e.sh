#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# jetgate's surfaces end to end on a real CUDA machine (made for the lent
# H100/H200), in one command:
#
#   bench/gpu_e2e.sh JETGATE OUTDIR [NODE_EXPORTER]
#
#  1. probe: --cuda (JSON and text) and --host-root / (the live host read
#     through its mount, as a pod reads it), each with its exit status;
#  2. the gate workflow in a scratch git repository of one commit: the
#     built-in cuda-runtime gate and a decode gate (the default preset's
#     decode_tok_s and decode_fraction_of_bound), run three times on an idle
#     GPU and twice under GPU load (a PyTorch copy and matrix loop beside
#     it), each run's evidence in its own folder, its textfile beside;
#     check, support and summary over the idle and the loaded evidence;
#  3. the textfile scraped by a real node_exporter (NODE_EXPORTER, default
#     prometheus-node-exporter on PATH), before and after the history's
#     regressions are written beside it;
#  4. history: ingest the five runs, show, regressions (the loaded runs must
#     be found: exit 1; "must not pass silently");
#  5. signed evidence: bench/signed-evidence-e2e.sh (keygen, signed run,
#     check, an edited and an unsigned copy refused);
#  6. the device nodes a CUDA process holds open (bench/cuda_open_nodes.c,
#     built with nvcc there) and those `jetgate probe --cuda` holds while it
#     runs (sampled from /proc/PID/fd).
#
# Prints each step's exit status; OUTDIR gets e2e.log and the documents.
set -uo pipefail
jg=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
nodeexp=${3:-$(command -v prometheus-node-exporter || true)}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
policy_src=${E2E_POLICY:-$root/data/default-policy.json}
exec > >(tee -a "$out/e2e.log") 2>&1
work=$(mktemp -d)
step() { echo; echo "== $*"; }
show_exit() { echo "-> exit $1 ($2)"; }

step "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader
"$jg" --version

step "1. probe --cuda --json, probe --host-root / --cuda"
"$jg" probe --cuda --json >"$out/probe-cuda.json" 2>"$out/probe-cuda.stderr"
show_exit $? "probe --cuda --json"
"$jg" probe --host-root / --cuda --json >"$out/probe-host-root.json" 2>"$out/probe-host-root.stderr"
show_exit $? "probe --host-root / --cuda --json"
"$jg" probe --host-root / --cuda
show_exit $? "probe --host-root / --cuda (text)"
python3 - "$out/probe-host-root.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("host_mount:", json.dumps(d.get("host_mount"))[:400])
print("facts_source:", d.get("facts_source"), "root:", d.get("root"))
for k, v in (d.get("probes") or {}).items():
    vals = v.get("values", {})
    keep = {m: vals[m] for m in list(vals)[:4]}
    print(f"  {k}: {v.get('status')} {json.dumps(keep)[:200]}")
PY

step "2. gate workflow in a scratch repository"
mkdir -p "$work/repo/ci" "$work/metrics"
python3 - "$policy_src" "$work/repo/ci/policy.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["gates"] = [g for g in p["gates"] if g["id"] == "cuda-runtime"]
p["gates"].append({
    "id": "gpu-decode",
    "description": "LLM decoding on this GPU: the default preset at a tenth of the read bound.",
    "requires": {"cuda": True},
    "probes": [{"probe": "decode", "metric": "decode_tok_s", "min": 10},
               {"probe": "decode", "metric": "decode_fraction_of_bound", "min": 0.1}]})
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
(cd "$work/repo" && git init -q && git add -A &&
  git -c user.name=e2e -c user.email=e2e@localhost commit -qm policy)
sha=$(git -C "$work/repo" rev-parse HEAD)
policy=$work/repo/ci/policy.json
load_pid=
start_load() {
  python3 "$root/bench/gpu_load.py" 240 &
  load_pid=$!
  sleep 8
  nvidia-smi --query-gpu=utilization.gpu,utilization.memory --format=csv,noheader
}
gate_runs() {  # gate_runs N LABEL
  local i=$1 label=$2
  for gate in cuda-runtime gpu-decode; do
    (cd "$work/repo" && "$jg" run "$gate" --policy "$policy" --evidence-dir "$work/ev$i" \
      --node lent-gpu --prometheus "$work/metrics/jetgate.prom" --quiet)
    show_exit $? "run $gate, run $i ($label)"
  done
  python3 - "$work/ev$i/gpu-decode.json" "$work/ev$i/cuda-runtime.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    e = json.load(open(path))
    pr = e.get("probes", {})
    vals = {}
    for probe, keys in (("decode", ("decode_tok_s", "decode_fraction_of_bound")),
                        ("bandwidth", ("d2d_gbps", "d2d_fraction_of_peak"))):
        for k in keys:
            v = pr.get(probe, {}).get("values", {}).get(k)
            if v is not None:
                vals[k] = round(v["value"] if isinstance(v, dict) else v, 3)
    print(f"   {e['gate']}: {e['status']} {json.dumps(vals)}")
PY
}
for i in 1 2 3; do gate_runs "$i" idle; done
(cd "$work/repo" && "$jg" run cuda-runtime --policy "$policy" --evidence-dir "$work/evh" \
  --host-root / --quiet)
show_exit $? "run cuda-runtime --host-root /"
python3 - "$work/evh/cuda-runtime.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
print("   status", e["status"], "facts_source", e.get("facts_source"), "root", e.get("root"))
print("   host_mount", json.dumps(e.get("host_mount"))[:300])
PY
step "2b. two runs under GPU load"
start_load
for i in 4 5; do gate_runs "$i" "under load"; done
kill "$load_pid" 2>/dev/null
wait "$load_pid" 2>/dev/null

step "2c. check, support, summary"
"$jg" check --policy "$policy" --evidence-dir "$work/ev3" --candidate-sha "$sha" --require-gate cuda-runtime
show_exit $? "check (idle evidence)"
"$jg" check --policy "$policy" --evidence-dir "$work/ev5" --candidate-sha "$sha"
show_exit $? "check (evidence under load)"
"$jg" support --evidence-dir "$work/ev3"
show_exit $? "support"
"$jg" summary --evidence-dir "$work/ev3" --policy "$policy"
show_exit $? "summary"

step "3. node_exporter scrapes the textfile"
ne_pid=
scrape() {  # scrape FILE
  python3 - "$1" <<'PY'
import sys, time, urllib.request
for _ in range(50):
    try:
        body = urllib.request.urlopen("http://127.0.0.1:19100/metrics", timeout=2).read().decode()
        break
    except Exception as e:  # not up yet
        time.sleep(0.2)
else:
    print("node_exporter did not answer"); sys.exit(1)
lines = [l for l in body.splitlines() if "jetgate" in l or l.startswith("node_textfile")]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
print(f"{len(lines)} jetgate/textfile lines; e.g.:")
for l in lines:
    if l.startswith(("jetgate_gate_status", "jetgate_probe_tokens_per_second", "node_textfile_scrape_error",
                     "jetgate_regression")) and not l.startswith("#"):
        print("  ", l)
PY
}
if [[ -n "$nodeexp" ]]; then
  "$nodeexp" --web.listen-address=127.0.0.1:19100 --collector.disable-defaults \
    --collector.textfile --collector.textfile.directory="$work/metrics" >"$work/ne.log" 2>&1 &
  ne_pid=$!
  scrape "$out/scrape-runs.txt"
  show_exit $? "scrape after the runs"
else
  echo "no node_exporter binary"
fi

step "4. history over the five runs"
"$jg" history ingest "$work"/ev1 "$work"/ev2 "$work"/ev3 "$work"/ev4 "$work"/ev5 --db "$work/fleet.db"
show_exit $? "history ingest"
"$jg" history show --db "$work/fleet.db" --gate gpu-decode --probe decode --metric decode_tok_s
show_exit $? "history show"
"$jg" history regressions --db "$work/fleet.db" --policy "$policy" \
  --prometheus "$work/metrics/jetgate-history.prom"
show_exit $? "history regressions (want 1: the loaded runs)"
"$jg" history regressions --db "$work/fleet.db" --policy "$policy" --json >"$out/regressions.json"
if [[ -n "$ne_pid" ]]; then
  scrape "$out/scrape-history.txt"
  show_exit $? "scrape after regressions"
  kill "$ne_pid"
fi

step "5. signed evidence"
(cd "$root" && bash bench/signed-evidence-e2e.sh "$jg" "$work/signed")
show_exit $? "signed-evidence-e2e.sh"

step "6. device nodes held open"
if nvcc -o "$work/cuda_open_nodes" "$root/bench/cuda_open_nodes.c" -lcuda 2>"$work/nvcc.log"; then
  # Per stage: each device node and how many descriptors of it are open.
  "$work/cuda_open_nodes" | python3 -c '
import collections, sys
stage, counts = None, collections.Counter()
def flush():
    if stage: print("  ", stage, dict(counts) or "no /dev node")
for line in sys.stdin:
    line = line.strip()
    if line.startswith("=="):
        flush(); stage, counts = line[3:], collections.Counter()
    elif line.startswith("/dev/"):
        counts[line] += 1
flush()'
else
  head -5 "$work/nvcc.log"
fi
# jetgate probe --cuda runs each probe in a child process: sample every
# jetgate process's descriptors while it runs.
"$jg" probe --cuda --json >/dev/null 2>&1 &
ppid=$!
declare -A seen=()
while kill -0 "$ppid" 2>/dev/null; do
  for d in /proc/[0-9]*; do
    [[ "$(cat "$d/comm" 2>/dev/null)" == jetgate* ]] || continue
    for f in "$d"/fd/*; do
      t=$(readlink "$f" 2>/dev/null) || continue
      [[ "$t" == /dev/* ]] && seen[$t]=1
    done
  done
  sleep 0.02
done
wait "$ppid"
echo "jetgate probe --cuda and its children held open (sampled): ${!seen[*]}"

cp -r "$work"/ev1 "$work"/ev4 "$work"/ev5 "$work"/evh "$work/metrics" "$out/" 2>/dev/null
cp "$policy" "$out/e2e-policy.json"
rm -rf "$work"
echo "e2e done"
