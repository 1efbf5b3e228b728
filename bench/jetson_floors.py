#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The built-in Jetson gate's decode floors, set the way NVIDIA's DCGM sets
its per-SKU limits: 75% of what a healthy part of that kind measures
(NVIDIA/DCGM nvvs/diag-skus.yaml.in, e.g. "H100 80GB HBM3: dcgmproftester -t
1005 shows ~2540000. Multiply by .75 to get ~1905000").

What a healthy board decodes with the probe's default preset (qwen2.5-0.5b
fp16) is modelled from two parts of a token, as docs/probes.md explains:
  t_b   = bytes per token / (READ_SHARE x the module's memory bandwidth in that power mode)
  t_fix = the probe's fixed cost per token (barriers, latency chains), measured
          on a data-centre GPU and scaled by its SM clock over the module's GPU clock
  healthy tok/s = 1 / (t_b + t_fix);  healthy fraction of bound h = t_b / (t_b + t_fix)
  floors: decode_tok_s >= 0.75 x healthy tok/s, decode_fraction_of_bound >= 0.75 x h

Usage: bench/jetson_floors.py [--json] [--t-fix-ms MS --ref-mhz MHZ]
Prints the table (markdown) or the policy's probe checks (--json).
"""
import argparse
import json

# Per module: part numbers (data/jetson-modules.json), memory bandwidth (GB/s)
# and GPU clock (MHz) per nvpmodel mode name whose figures NVIDIA publishes.
# Sources: NVIDIA Jetson AGX Orin Series / Orin NX Series / Orin Nano Series
# data sheets and the Jetson Linux Developer Guide, "Power and Performance:
# Supported Modes" tables (EMC and GPU maximum per mode); Jetson AGX Thor
# data sheet (273 GB/s, GPU 1575 MHz).
MODULES = [
    ("Jetson AGX Orin 64GB", ["p3701-0005"], {"MAXN": (204.8, 1301)}),
    ("Jetson AGX Orin 32GB", ["p3701-0004"], {"MAXN": (204.8, 939)}),
    ("Jetson Orin NX 16GB", ["p3767-0000"], {"MAXN": (102.4, 918), "MAXN_SUPER": (102.4, 1173)}),
    ("Jetson Orin NX 8GB", ["p3767-0001"], {"MAXN": (102.4, 765), "MAXN_SUPER": (102.4, 1173)}),
    ("Jetson Orin Nano 8GB", ["p3767-0003", "p3767-0005"],
     {"15W": (68.0, 625), "MAXN_SUPER": (102.0, 1020)}),
    ("Jetson Orin Nano 4GB", ["p3767-0004"], {"10W": (34.0, 625), "MAXN_SUPER": (51.0, 1020)}),
    ("Jetson T5000 (AGX Thor)", ["p3834-0008"], {"MAXN": (273.0, 1575)}),
]

BYTES_PER_TOKEN = 0.989e9  # qwen2.5-0.5b fp16, decode_bytes_per_token (bench/results/h200-2026-12-01)
READ_SHARE = 0.80  # read-only bandwidth a healthy Jetson's probe measures, of the data sheet's
FLOOR_SHARE = 0.75  # DCGM's "75% of healthy"


def rows(t_fix_ms, ref_mhz):
    for name, parts, modes in MODULES:
        for mode, (gbps, mhz) in modes.items():
            t_b = BYTES_PER_TOKEN / (READ_SHARE * gbps * 1e9)
            t_fix = t_fix_ms / 1e3 * ref_mhz / mhz
            tok_s = 1.0 / (t_b + t_fix)
            h = t_b / (t_b + t_fix)
            yield {
                "module": name, "parts": parts, "power_mode": mode, "gbps": gbps, "gpu_mhz": mhz,
                "t_b_ms": t_b * 1e3, "t_fix_ms": t_fix * 1e3, "healthy_tok_s": tok_s,
                "healthy_fraction": h,
                "floor_tok_s": int(FLOOR_SHARE * tok_s),  # rounded down: never above 75%
                "floor_fraction": int(FLOOR_SHARE * h * 100) / 100,
            }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    # The probe's fixed cost per token and the SM clock it was measured at:
    # H200, 2026-12-01 (bench/results/h200-2026-12-01): 887 us per token, of
    # which 220 us are bytes over the read bandwidth.
    ap.add_argument("--t-fix-ms", type=float, default=0.667)
    ap.add_argument("--ref-mhz", type=float, default=1980)
    a = ap.parse_args()
    rs = list(rows(a.t_fix_ms, a.ref_mhz))
    if a.json:
        checks = []
        for r in rs:
            when = {"module": r["parts"], "power_mode": r["power_mode"]}
            checks.append({"probe": "decode", "metric": "decode_tok_s", "min": r["floor_tok_s"],
                           "when": when})
            checks.append({"probe": "decode", "metric": "decode_fraction_of_bound",
                           "min": r["floor_fraction"], "when": when})
        print(json.dumps(checks, indent=1))
        return
    print("| module | parts | power mode | GB/s | GPU MHz | t_b ms | t_fix ms | healthy tok/s "
          "| healthy fraction | floor tok/s | floor fraction |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rs:
        print(f"| {r['module']} | {', '.join(r['parts'])} | {r['power_mode']} | {r['gbps']} "
              f"| {r['gpu_mhz']} | {r['t_b_ms']:.2f} | {r['t_fix_ms']:.2f} "
              f"| {r['healthy_tok_s']:.0f} | {r['healthy_fraction']:.2f} | {r['floor_tok_s']} "
              f"| {r['floor_fraction']:.2f} |")


if __name__ == "__main__":
    main()
