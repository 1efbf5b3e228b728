#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Generates N evidence files for bench/evidence-scale.sh (issue 23, "Scale"),
# made from the real docs/examples/evidence-*.json: each file is one of them
# with the platform (GPU model, driver, OS, host), the gate, the day, the
# outcome and the commit varied, so the set looks like months of CI on a
# fleet of runners. Files go to OUT/runner-RRR/day-DD/GATE.json (one file per
# gate per directory, as `jetgate run --evidence-dir` writes them); the
# directories, one a line, go to OUT/dirs.txt, and a policy naming the gates
# to OUT/policy.json.
#
# With --green every run passes cleanly (no failed or skipped tests, a clean
# tree): the fleet is all green, the case where every lane's newest file must
# have its signature checked.
#
# With --node-lanes every file records its runner as its board and lane
# (/lane/node, as `jetgate run --node` writes it), so a runner's days are one
# lane; without it each directory is a lane of its own.
#
# With --sign KEYFILE (a secret key `jetgate keygen` wrote) every file gets a
# GATE.dsse.json beside it, signed as `jetgate run --sign-key` signs
# (python3-nacl), and the policy trusts that key.
#
# Usage: bench/gen_evidence.py OUT N [--sign KEYFILE] [--seed S] [--node-lanes] [--green]
import argparse
import base64
import copy
import glob
import hashlib
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "docs", "examples")
REPOSITORY = "acme/robot"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://github.com/jetgate/jetgate/blob/main/docs/trust.md#gate-evidence-v1"
GATES = ["cuda-runtime", "gtest-gpu", "nccl-allreduce", "torch-smoke", "decode-bench",
         "memory-pressure", "bandwidth", "container-runtime", "driver-upgrade", "multi-stream"]
PLATFORMS = [  # (GPU name, compute capability, SMs, memory bytes, driver, OS id, version, codename)
    ("NVIDIA H200", "9.0", 132, 150109880320, "580.159.04", "ubuntu", "24.04", "noble"),
    ("NVIDIA H100 80GB HBM3", "9.0", 132, 85520809984, "575.57.08", "ubuntu", "22.04", "jammy"),
    ("NVIDIA A100-SXM4-80GB", "8.0", 108, 85089976320, "570.133.20", "ubuntu", "22.04", "jammy"),
    ("NVIDIA L4", "8.9", 58, 23580639232, "550.163.01", "debian", "12", "bookworm"),
    ("NVIDIA RTX 6000 Ada Generation", "8.9", 142, 51527024640, "580.159.04", "rhel", "9.4", ""),
]


def vary(base, gate, platform, day, runner, rng, node_lanes=False, green=False):
    d = copy.deepcopy(base)
    name, cc, sms, mem, driver, os_id, os_version, codename = platform
    d["gate"] = gate
    d["generated_at"] = "2026-11-%02dT%02d:%02d:%02dZ" % (day, rng.randrange(24), rng.randrange(60),
                                                        rng.randrange(60))
    d["git_sha"] = hashlib.sha1(f"{day}-{runner}-{gate}".encode()).hexdigest()
    failed = not green and rng.random() < 0.08
    d["status"] = "failed" if failed else "passed"
    d["exit_code"] = 1 if failed else 0
    d["reason"] = "1 test failed" if failed else d.get("reason", "")
    tests = rng.randrange(4, 400)
    d["counts"] = {"tests": tests, "failures": 1 if failed else 0, "errors": 0,
                   "skipped": 0 if green else rng.randrange(3)}
    if green:
        d["dirty"] = False
    gpu = d.get("gpu") or {}
    for dev in gpu.get("devices", []):
        dev.update({"name": name, "compute_capability": cc, "sm_count": sms,
                    "total_memory_bytes": mem, "free_memory_bytes": mem - rng.randrange(1 << 30),
                    "pci_bus_id": "0000:%02x:00.0" % rng.randrange(256)})
    p = d.get("platform") or {}
    p.setdefault("nvidia_driver", {})["version"] = driver
    p.setdefault("os", {}).update({"id": os_id, "version_id": os_version,
                                   "version_codename": codename})
    p["hostname"] = "runner-%03d" % runner
    if node_lanes:
        d["lane"] = {"node": "runner-%03d" % runner, "kind": "native"}
    for probe in (d.get("probes") or {}).values():
        if isinstance(probe, dict) and "duration_ms" in probe:
            probe["duration_ms"] = round(rng.uniform(1, 900), 3)
    return d


def sign(text, doc, seed, key_id):
    import nacl.signing  # python3-nacl
    statement = {"_type": STATEMENT_TYPE,
                 "subject": [{"name": REPOSITORY, "digest": {"gitCommit": doc["git_sha"]}}],
                 "predicateType": PREDICATE_TYPE, "predicate": json.loads(text)}
    # jetgate signs the compact dump with sorted keys (nlohmann's order).
    payload = json.dumps(statement, sort_keys=True, separators=(",", ":"),
                         ensure_ascii=False).encode()
    pae = b"DSSEv1 %d %s %d %s" % (len(PAYLOAD_TYPE), PAYLOAD_TYPE.encode(), len(payload), payload)
    sig = nacl.signing.SigningKey(seed).sign(pae).signature
    return {"payloadType": PAYLOAD_TYPE, "payload": base64.b64encode(payload).decode(),
            "signatures": [{"keyid": key_id, "sig": base64.b64encode(sig).decode()}]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("n", type=int)
    ap.add_argument("--sign", metavar="KEYFILE")
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--node-lanes", action="store_true")
    ap.add_argument("--green", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    bases = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(EXAMPLES, "evidence-*.json")))]
    seed = key_id = None
    if a.sign:
        key = json.load(open(a.sign))
        seed, key_id = base64.b64decode(key["seed"]), key["key_id"]
    os.makedirs(a.out, exist_ok=True)
    dirs, written = [], 0
    runner = 0
    while written < a.n:
        for day in range(1, 29):
            if written >= a.n:
                break
            d = os.path.join(a.out, "runner-%03d" % runner, "day-%02d" % day)
            os.makedirs(d, exist_ok=True)
            dirs.append(d)
            platform = PLATFORMS[runner % len(PLATFORMS)]
            for gate in GATES:
                if written >= a.n:
                    break
                doc = vary(bases[written % len(bases)], gate, platform, day, runner, rng,
                           a.node_lanes, a.green)
                text = json.dumps(doc, indent=2, sort_keys=True) + "\n"
                with open(os.path.join(d, gate + ".json"), "w") as f:
                    f.write(text)
                if seed:
                    with open(os.path.join(d, gate + ".dsse.json"), "w") as f:
                        json.dump(sign(text, doc, seed, key_id), f, indent=2)
                        f.write("\n")
                written += 1
        runner += 1
    with open(os.path.join(a.out, "dirs.txt"), "w") as f:
        f.write("".join(x + "\n" for x in dirs))
    policy = json.load(open(os.path.join(EXAMPLES, "x86-cuda-policy.json")))
    template = policy["gates"][0]
    policy["gates"] = []
    for gate in GATES:
        g = copy.deepcopy(template)
        g["id"] = gate
        policy["gates"].append(g)
    policy["maximum_evidence_age_days"] = 60
    policy["repository"] = REPOSITORY
    if a.sign:
        policy["trusted_keys"] = [json.load(open(a.sign + ".pub.json"))]
    with open(os.path.join(a.out, "policy.json"), "w") as f:
        json.dump(policy, f, indent=2)
        f.write("\n")
    print(f"{written} evidence files in {len(dirs)} directories under {a.out}")


if __name__ == "__main__":
    main()
