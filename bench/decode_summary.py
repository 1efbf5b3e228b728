#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summary of one bench/decode_h200.sh run: jetgate's decode rate against the
references measured in the same run, as ratios (docs/probes.md, "Reading
bench/decode_h200.sh"). Reads OUTDIR/{probe-*.json,peers.jsonl,sweep.jsonl,
gpu_tests.log}; prints a table and writes OUTDIR/summary.json.

Usage: decode_summary.py OUTDIR
"""
import glob
import json
import os
import re
import sys

# Issue 25's targets: share of the read bound measured in the same run.
TARGETS = {"qwen2.5-0.5b": 0.60, "llama-3.2-1b": 0.70}


def jsonl(path):
    if not os.path.exists(path):
        return []
    rows = []
    for line in open(path):
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except ValueError:
                pass
    return rows


def gtest_counts(path):
    if not os.path.exists(path):
        return None
    text = open(path, errors="replace").read()
    # gtest repeats the failed tests in its closing list: count names once.
    counts = {k: len(set(re.findall(r"^\[ +%s +\] (\S+\.\S+) \(" % k, text, re.M)))
              for k in ("OK", "FAILED", "SKIPPED")}
    counts["failed_tests"] = sorted(set(re.findall(r"^\[  FAILED  \] (\S+\.\S+) \(", text, re.M)))
    counts["finished"] = "[  PASSED  ]" in text or "tests ran." in text
    return counts


def ratio(a, b):
    return a / b if a and b else None


def fmt_ratio(r):
    return "n/a" if r is None else f"{r:.3f}"


def model_summary(doc, peers, name):
    d = (doc.get("probes") or {}).get("decode")
    if not d:
        return None, [f"{name}: no decode result in the probe document"]
    v = {k: x.get("value") for k, x in (d.get("values") or {}).items()}
    # A SKIP or an early FAIL has no details: the file name says the model.
    model, dtype = d["details"].get("model", name), d["details"].get("dtype", "")
    s = {"model": model, "dtype": dtype, "status": d.get("status"), "reason": d.get("reason"),
         "duration_ms": d.get("duration_ms"), "launch": d["details"].get("launch"),
         "tok_s": v.get("decode_tok_s"), "burst_tok_s": v.get("decode_burst_tok_s"),
         "bytes_per_token": v.get("decode_bytes_per_token"),
         "jetgate_read_gbps": v.get("decode_read_gbps"),
         "fraction_of_bound": v.get("decode_fraction_of_bound"),
         "fraction_of_theoretical": v.get("decode_fraction_of_theoretical"),
         "latency_p50_us": v.get("decode_latency_p50_us"),
         "latency_p99_us": v.get("decode_latency_p99_us"),
         "blocking_sync_cpu_fraction": v.get("decode_blocking_sync_cpu_fraction"),
         "target_fraction_of_bound": TARGETS.get(model), "ratios": {}}
    lines = [f"{model} {dtype}: {s['status']} in {s['duration_ms'] or 0:.0f} ms ({s['launch']}): {s['reason']}"]
    tok, nbytes = s["tok_s"], s["bytes_per_token"]
    if tok:
        lines.append(f"  jetgate {tok:8.1f} tok/s, {nbytes / 1e6 if nbytes else 0:.1f} MB/token, "
                     f"p50 {s['latency_p50_us'] or 0:.0f} us, p99 {s['latency_p99_us'] or 0:.0f} us, "
                     f"burst {s['burst_tok_s'] or 0:.0f} tok/s, blocking sync "
                     f"{s['blocking_sync_cpu_fraction'] if s['blocking_sync_cpu_fraction'] is not None else float('nan'):.2f} of a core")
        frac, target = s["fraction_of_bound"], s["target_fraction_of_bound"]
        if frac is not None:
            verdict = ""
            if target:
                verdict = (" (target %.0f%%: met)" % (target * 100) if frac >= target else
                           " (target %.0f%%: MISSED by %.1f points)" % (target * 100, (target - frac) * 100))
            lines.append(f"  vs jetgate's read bound ({s['jetgate_read_gbps'] or 0:.0f} GB/s): "
                         f"{fmt_ratio(frac)}{verdict}")
    for p in peers:
        if p.get("model") != model:
            continue
        name = p.get("peer")
        if "error" in p:
            lines.append(f"  {name}: {p['error']}")
            s["ratios"][name] = None
            continue
        if name == "torch_read":
            gbps = p.get("read_gbps")
            bound = gbps * 1e9 / nbytes if gbps and nbytes else None
            s["torch_read_gbps"] = gbps
            s["ratios"]["tok_s_over_torch_read_bound"] = ratio(tok, bound)
            s["ratios"]["jetgate_read_over_torch_read"] = ratio(s["jetgate_read_gbps"], gbps)
            lines.append(f"  vs torch's read bandwidth ({gbps or 0:.0f} GB/s over {p.get('read_bytes', 0) / 1e6:.0f} MB, "
                         f"bound {bound or 0:.0f} tok/s): {fmt_ratio(s['ratios']['tok_s_over_torch_read_bound'])}; "
                         f"jetgate's read kernel / torch's: {fmt_ratio(s['ratios']['jetgate_read_over_torch_read'])}")
        else:
            r = ratio(tok, p.get("tok_s"))
            s["ratios"][f"tok_s_over_{name}"] = r
            lines.append(f"  vs {name:12s} {p.get('tok_s', 0):8.1f} tok/s: jetgate / {name} = {fmt_ratio(r)}")
    return s, lines


def main():
    out = sys.argv[1]
    summary = {"gpu_tests": gtest_counts(os.path.join(out, "gpu_tests.log")), "models": [],
               "sweep": jsonl(os.path.join(out, "sweep.jsonl"))}
    peers = jsonl(os.path.join(out, "peers.jsonl"))
    t = summary["gpu_tests"]
    if t is None:
        print("GPU tests: not run")
    else:
        print(f"GPU tests: {t['OK']} passed, {t['FAILED']} failed, {t['SKIPPED']} skipped"
              + ("" if t["finished"] else " (did not finish: time limit or crash)")
              + (": " + ", ".join(t["failed_tests"]) if t["failed_tests"] else ""))
    for path in sorted(glob.glob(os.path.join(out, "probe-*.json"))):
        try:
            doc = json.load(open(path))
        except ValueError:
            print(f"{os.path.basename(path)}: not JSON (the probe crashed or timed out; see run.log)")
            continue
        name = os.path.basename(path)[len("probe-"):-len(".json")]
        s, lines = model_summary(doc, peers, name)
        print("\n".join(lines))
        if s:
            summary["models"].append(s)
    for s in summary["sweep"]:
        print(f"kernels {s['model']:14s} {s['dtype']} {s['launch']:10s} bps={s['blocks_per_sm']} "
              f"window={s['prefetch_mib']:3d}MiB flags={s.get('bench_flags', 0)}: {s['tok_s']:7.0f} tok/s "
              f"({s['fraction_of_bound'] * 100:4.1f}% of {s['bound_tok_s']:.0f}), "
              f"burst {s['burst_tok_s']:.0f}, p99 {s['p99_us']:.0f} us")
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
