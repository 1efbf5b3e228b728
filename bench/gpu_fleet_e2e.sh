#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fleet surfaces on a real CUDA machine (made for the lent H100/H200), in one command:
#
#   bench/gpu_fleet_e2e.sh JETGATE OUTDIR PROMETHEUS NODE_EXPORTER
#
# PROMETHEUS and NODE_EXPORTER are Debian's binaries (prometheus, prometheus-node-exporter),
# carried to the machine; a path ending in .xz is unpacked first.
#
#  1. `jetgate run cuda-runtime --every 1m --jitter 1s --keep 2` (the DaemonSet's
#     long-running mode) with --prometheus into a node_exporter textfile directory; the
#     first run on an idle GPU, the second under GPU load (a PyTorch copy and matrix loop
#     beside it); then SIGTERM in the middle of the third run: the time it takes to exit
#     (a pod's default grace period is 30 s) and its exit status;
#  2. node_exporter scrapes the textfile; Prometheus scrapes node_exporter every 2 s and
#     evaluates deploy/monitoring/jetgate-rules.yaml every 2 s; the alerts it shows after
#     the idle run (none of jetgate's may fire) and after the loaded run
#     (JetgateGateFailing: the gate passed on this node before and now fails);
#  3. the dated evidence `--keep` left, ingested into a history.
#
# Prints each step's result; OUTDIR gets fleet-e2e.log, the alerts and the textfiles.
set -uo pipefail
jg=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
exec > >(tee -a "$out/fleet-e2e.log") 2>&1
unpack() { case "$1" in *.xz) xz -dc "$1" >"$work/$2" && chmod +x "$work/$2" && echo "$work/$2" ;; *) realpath "$1" ;; esac; }
prom=$(unpack "$3" prometheus)
nodeexp=$(unpack "$4" node_exporter)
step() { echo; echo "== $(date -u +%T) $*"; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT

step "machine"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$jg" --version; "$prom" --version 2>&1 | head -1; "$nodeexp" --version 2>&1 | head -1

mkdir -p "$work/repo/ci" "$work/metrics" "$work/ev"
python3 - "$root/data/default-policy.json" "$work/repo/ci/policy.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["gates"] = [g for g in p["gates"] if g["id"] == "cuda-runtime"]
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
(cd "$work/repo" && git init -q && git add -A &&
  git -c user.name=e2e -c user.email=e2e@localhost commit -qm policy)

step "node_exporter and Prometheus with jetgate's rules"
"$nodeexp" --web.listen-address=127.0.0.1:19100 --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$work/metrics" >"$work/ne.log" 2>&1 &
pids+=($!)
cat >"$work/prometheus.yml" <<YML
global: {scrape_interval: 2s, evaluation_interval: 2s}
rule_files: ["$root/deploy/monitoring/jetgate-rules.yaml"]
scrape_configs:
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:19100"]}]
YML
"$prom" --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address=127.0.0.1:19090 >"$work/prom.log" 2>&1 &
pids+=($!)
alerts() {  # alerts LABEL: jetgate's alerts Prometheus shows now
  python3 - "$1" "$out" <<'PY'
import json, sys, time, urllib.request
label, out = sys.argv[1], sys.argv[2]
for _ in range(100):
    try:
        rules = json.load(urllib.request.urlopen("http://127.0.0.1:19090/api/v1/rules", timeout=2))
        if rules["data"]["groups"]:
            break
    except Exception:
        pass
    time.sleep(0.2)
else:
    print("Prometheus did not answer"); sys.exit(1)
bad = [r["name"] for g in rules["data"]["groups"] for r in g["rules"] if r.get("health") != "ok"]
data = json.load(urllib.request.urlopen("http://127.0.0.1:19090/api/v1/alerts", timeout=2))
alerts = data["data"]["alerts"]
json.dump(alerts, open(f"{out}/alerts-{label}.json", "w"), indent=1)
q = urllib.request.quote('jetgate_gate_status == 1')
st = json.load(urllib.request.urlopen(f"http://127.0.0.1:19090/api/v1/query?query={q}", timeout=2))
print(f"   rules not healthy: {bad or 'none'}")
print("   gate status series:", [r["metric"].get("status") for r in st["data"]["result"]])
print(f"   alerts ({label}):", [(a["labels"]["alertname"], a["state"]) for a in alerts] or "none")
PY
}
wait_runs() {  # wait_runs N: until N dated runs are kept (or 240 s)
  for _ in $(seq 480); do
    [ "$(ls "$work/ev/runs" 2>/dev/null | wc -l)" -ge "$1" ] && return 0
    sleep 0.5
  done
  echo "   timed out waiting for run $1"; return 1
}

step "1. run --every: the first run, on an idle GPU"
(cd "$work/repo" && exec "$jg" run cuda-runtime --policy ci/policy.json --evidence-dir "$work/ev" \
  --node lent-gpu --prometheus "$work/metrics/jetgate.prom" --every 1m --jitter 1s --keep 2 \
  --quiet) >"$work/every.log" 2>&1 &
every=$!
pids+=($every)
t0=$SECONDS
wait_runs 1
echo "   first run kept after $((SECONDS - t0)) s: $(ls "$work/ev/runs")"
sleep 8  # two scrapes and two rule evaluations
grep '^jetgate_gate_status' "$work/metrics/jetgate.prom" | grep ' 1$'
alerts idle
cp "$work/metrics/jetgate.prom" "$out/textfile-idle.prom"

step "1b. the second run, under GPU load"
python3 "$root/bench/gpu_load.py" 150 &
load=$!
pids+=($load)
t1=$SECONDS
before=$(ls "$work/ev/runs" | tail -1)
for _ in $(seq 360); do
  newest=$(ls "$work/ev/runs" | tail -1)
  [ "$newest" != "$before" ] && break
  sleep 0.5
done
echo "   second run kept $((SECONDS - t1)) s after the load started: $newest"
kill "$load" 2>/dev/null; wait "$load" 2>/dev/null
sleep 8
grep '^jetgate_gate_status' "$work/metrics/jetgate.prom" | grep ' 1$'
grep '^jetgate_gate_last_success' "$work/metrics/jetgate.prom"
alerts loaded
cp "$work/metrics/jetgate.prom" "$out/textfile-loaded.prom"

step "1c. SIGTERM in the middle of the third run"
# The third run starts about a minute after the second ended; wait until its probe runs.
for _ in $(seq 200); do
  pgrep -P "$every" >/dev/null && break
  sleep 0.5
done
echo "   children of run --every now: $(pgrep -P "$every" | tr '\n' ' ')"
t2=$(date +%s.%N)
kill -TERM "$every"
wait "$every"
rc=$?
echo "   run --every exited $rc, $(python3 -c "import time; print(round(time.time() - $t2, 2))") s after SIGTERM"
tail -5 "$work/every.log"
echo "   kept runs: $(ls "$work/ev/runs" | tr '\n' ' ')"

step "3. history over the kept runs"
"$jg" history ingest "$work/ev/runs" --db "$work/fleet.db"
echo "   -> exit $?"
"$jg" history show --db "$work/fleet.db" --gate cuda-runtime
echo "   -> exit $?"
cp -r "$work/ev" "$out/evidence"
echo "fleet e2e done"
