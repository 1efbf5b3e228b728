# SPDX-License-Identifier: Apache-2.0
"""Runs the pod templates of `jetgate init --kubernetes` in rootful podman (runc) and
checks what they leave where the manifests say. Called by tests/k8s/run-pods.sh, which
writes podman's configuration for this sandbox.

Each container is started with `podman run` built from the manifest itself: command and
args with $(VAR) expanded as the kubelet expands them, env (fieldRef spec.nodeName is the
node's name), runAsUser/runAsGroup/supplementalGroups, readOnlyRootFilesystem,
allowPrivilegeEscalation: false (no-new-privileges), capabilities, and every volume:
hostPath from the recorded host tree (a real procfs for /proc; type Directory must exist,
DirectoryOrCreate and no type are created as the kubelet and containerd do), the ConfigMap
from 10-policy.yaml, emptyDir as an empty directory. What podman does not model is said
in docs/kubernetes.md (admission, scheduling, the device plugin, CDI injection, resources).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import yaml

NODE = "orin-nx-pod-test"
CLAIM = "jetgate-evidence"
IMAGE = "localhost/jetgate:pod-test"
GATE = "gpu-node"
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def podman(*args, check_rc=True, capture=True, timeout=300):
    r = subprocess.run(["podman", *args], capture_output=capture, text=True, timeout=timeout)
    if check_rc and r.returncode != 0:
        sys.exit(f"run_pods.py: podman {' '.join(args)} exited {r.returncode}: {r.stderr}")
    return r


def expand(text, env):
    """The kubelet's $(VAR) expansion: a defined variable is replaced, $$ is a literal $,
    anything else stays as written (k8s.io/kubernetes third_party/forked/golang/expansion)."""
    def sub(m):
        if m.group(0) == "$$":
            return "$"
        return env.get(m.group(1), m.group(0))
    return re.sub(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)", sub, text)


def host_path(tree, path):
    """Where a hostPath lies in the test's host: /proc is this machine's procfs (jetgate
    refuses a recorded one), everything else comes from the recorded tree."""
    if path == "/proc" or path.startswith("/proc/"):
        return path
    return os.path.join(tree, path.lstrip("/"))


def podman_run_args(pod, name, tree, volumes_dir, configmaps, command=None, args=None):
    spec = pod["spec"]
    c = spec["containers"][0]
    psc, sc = spec.get("securityContext", {}), c.get("securityContext", {})
    out = ["run", "--name", name, "--pull", "never", "--network", "none",
           "--hostname", NODE, "--read-only-tmpfs=false"]
    check(sc.get("privileged") is False, f"{name}: privileged: false")
    uid, gid = psc.get("runAsUser"), psc.get("runAsGroup")
    if uid is not None:
        out += ["--user", f"{uid}:{gid if gid is not None else uid}"]
    for g in psc.get("supplementalGroups", []):
        out += ["--group-add", str(g)]
    if sc.get("readOnlyRootFilesystem"):
        out.append("--read-only")
    if sc.get("allowPrivilegeEscalation") is False:
        out += ["--security-opt", "no-new-privileges"]
    for cap in sc.get("capabilities", {}).get("drop", []):
        out += ["--cap-drop", cap]
    for cap in sc.get("capabilities", {}).get("add", []):
        out += ["--cap-add", cap]
    env = {}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = expand(e["value"], env)
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = NODE
        else:
            sys.exit(f"run_pods.py: {name}: env {e['name']}: a source this test does not model")
    for k, v in env.items():
        out += ["--env", f"{k}={v}"]
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    for m in c.get("volumeMounts", []):
        v = vols[m["name"]]
        ro = m.get("readOnly", False)
        if "hostPath" in v:
            hp = v["hostPath"]
            src = host_path(tree, hp["path"])
            kind = hp.get("type", "")
            if kind == "Directory":
                if not check(os.path.isdir(src), f"{name}: hostPath {hp['path']} (Directory) exists"):
                    continue
            elif kind in ("DirectoryOrCreate", ""):
                # DirectoryOrCreate: the kubelet; no type: containerd's CRI and CRI-O create a
                # missing source directory.
                os.makedirs(src, exist_ok=True)
            else:
                sys.exit(f"run_pods.py: {name}: hostPath type {kind!r} not modelled")
        elif "persistentVolumeClaim" in v:
            # A ReadWriteMany claim: one directory every pod that names it shares.
            src = os.path.join(volumes_dir, "claims", v["persistentVolumeClaim"]["claimName"])
            os.makedirs(src, exist_ok=True)
        elif "configMap" in v:
            src = os.path.join(volumes_dir, name, m["name"])
            os.makedirs(src, exist_ok=True)
            for key, text in configmaps[v["configMap"]["name"]].items():
                with open(os.path.join(src, key), "w") as f:
                    f.write(text)
        elif "emptyDir" in v:
            src = os.path.join(volumes_dir, name, m["name"])
            os.makedirs(src, exist_ok=True)
            os.chmod(src, 0o777)  # the kubelet's emptyDir mode
        else:
            sys.exit(f"run_pods.py: {name}: volume {m['name']}: a kind this test does not model")
        if "subPathExpr" in m:
            src = os.path.join(src, expand(m["subPathExpr"], env))
            os.makedirs(src, exist_ok=True)  # the kubelet creates a missing subPath
        out += ["--volume", f"{src}:{m['mountPath']}:{'ro' if ro else 'rw'},rbind"]
    command = c["command"] if command is None else command
    args = c.get("args", []) if args is None else args
    out += ["--entrypoint", json.dumps([expand(a, env) for a in command]), IMAGE]
    out += [expand(a, env) for a in args]
    return out, {"env": env}


def load_docs(path):
    with open(path) as f:
        return list(yaml.safe_load_all(f))


def evidence_checks(label, doc, tree):
    check(doc.get("gate") == GATE, f"{label}: the evidence is gate {GATE}")
    check(doc.get("status") in ("passed", "failed"), f"{label}: the gate ran ({doc.get('status')})")
    check(doc.get("facts_source") == "live", f"{label}: facts_source live")
    hm = doc.get("host_mount") or {}
    check(hm.get("image") == IMAGE, f"{label}: /host_mount/image is the manifest's image ({hm.get('image')!r})")
    check(doc.get("lane", {}).get("node") == NODE, f"{label}: /lane/node is $(NODE_NAME) expanded")
    # The host's OS is the recording's, read through /host/etc.
    want = None
    for line in open(os.path.join(tree, "etc/os-release")):
        if line.startswith("PRETTY_NAME="):
            want = line.split("=", 1)[1].strip().strip('"')
    got = json.dumps(doc.get("platform", {}))
    check(want is not None and want in got, f"{label}: the host's os-release ({want!r}) is in /platform")
    # The CDI spec in the host's /var/run/cdi, seen from inside the pod.
    cdi = doc.get("platform", {}).get("tegra", {}).get("driver", {}).get("cdi") or []
    paths = [s.get("path") for s in cdi if isinstance(s, dict)]
    want_specs = sorted("/var/run/cdi/" + n for n in os.listdir(os.path.join(tree, "var/run/cdi")))
    check(all(p in paths for p in want_specs),
          f"{label}: the CDI specs {want_specs} are seen from inside (/platform/tegra/driver/cdi: {paths})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("archive")
    a = ap.parse_args()
    work = a.work
    # The host: a copy of the recorded root (the DaemonSet creates its directories in it).
    # A Jetson's /proc/device-tree is /sys/firmware/devicetree/base; /proc here is this
    # machine's, so the recording's device tree is given where /sys has it.
    tree = os.path.join(work, "host")
    shutil.copytree(a.fixture, tree, symlinks=True)
    dt = os.path.join(a.fixture, "proc/device-tree")
    if os.path.isdir(dt):
        shutil.copytree(dt, os.path.join(tree, "sys/firmware/devicetree/base"), symlinks=True,
                        dirs_exist_ok=True)
    # As on Debian, Ubuntu (JetPack) and other systemd hosts, /etc/os-release is a relative
    # link to /usr/lib/os-release: the pod must read the host's OS through it.
    osr = os.path.join(tree, "etc/os-release")
    if os.path.isfile(osr) and not os.path.islink(osr):
        os.makedirs(os.path.join(tree, "usr/lib"), exist_ok=True)
        shutil.move(osr, os.path.join(tree, "usr/lib/os-release"))
        os.symlink("../usr/lib/os-release", osr)
    check(not os.path.exists(os.path.join(tree, "lib/modules")),
          "the host has no /lib/modules (its optional mount must not stop the pods)")

    loaded = podman("load", "-q", "-i", a.archive).stdout.strip()
    image_id = loaded.split()[-1]
    podman("tag", image_id, IMAGE)
    out_dir = os.path.join(work, "init")
    os.makedirs(out_dir)
    os.chmod(out_dir, 0o777)
    # The manifests, written by the image's own jetgate.
    podman("run", "--rm", "--network", "none", "--volume", f"{out_dir}:/out:rw",
           "--entrypoint", '["/usr/bin/jetgate"]', IMAGE,
           "init", "--kubernetes", "--dir", "/out", "--image", IMAGE, "--interval-minutes", "5",
           "--history-claim", CLAIM)
    k = os.path.join(out_dir, "deploy/kubernetes")
    for path in ("20-validate-node-job.yaml", "30-revalidate-daemonset.yaml",
                 "40-history-ingest-cronjob.yaml"):
        text = open(os.path.join(k, path)).read()
        check("/bin/sh" not in text, f"{path}: no shell")
    cm = load_docs(os.path.join(k, "10-policy.yaml"))[0]
    configmaps = {cm["metadata"]["name"]: cm["data"]}
    job = load_docs(os.path.join(k, "20-validate-node-job.yaml"))[0]
    ds = load_docs(os.path.join(k, "30-revalidate-daemonset.yaml"))[0]
    cron = load_docs(os.path.join(k, "40-history-ingest-cronjob.yaml"))[0]
    npd = json.load(open(os.path.join(k, "node-problem-detector/jetgate-monitor.json")))
    volumes = os.path.join(work, "volumes")

    # The Job: runs once, prints its evidence, keeps it in the emptyDir.
    t0 = time.monotonic()
    args, _ = podman_run_args(job["spec"]["template"], "job", tree, volumes, configmaps)
    r = podman(*args, check_rc=False)
    check(r.returncode in (0, 1), f"job: exit {r.returncode} (0 passed, 1 failed): {r.stderr[-2000:]}")
    try:
        doc = json.loads(r.stdout)
    except ValueError:
        doc = {}
        check(False, f"job: stdout is the evidence document: {r.stdout[:500]!r}")
    if doc:
        evidence_checks("job", doc, tree)
        check(doc.get("status") == ("passed" if r.returncode == 0 else "failed"),
              "job: the exit status is the evidence's")
    ev = os.path.join(volumes, "job", "evidence", f"{GATE}.json")
    check(os.path.isfile(ev), f"job: the evidence is in its volume ({GATE}.json)")
    check("install git" not in r.stderr, "job: a node validator is not told to install git")
    print(f"job: {time.monotonic() - t0:.1f} s", flush=True)
    podman("rm", "-f", "job")

    # The DaemonSet: one jetgate process; its first run fails here (no GPU), the loop
    # stays; SIGTERM (podman stop, as the kubelet stops a pod) ends it at once.
    t0 = time.monotonic()
    args, _ = podman_run_args(ds["spec"]["template"], "daemonset", tree, volumes, configmaps)
    args.insert(1, "--detach")
    podman(*args)
    # --history-claim: the evidence goes to the claim, in the node's own directory.
    claim = os.path.join(volumes, "claims", CLAIM)
    evd = os.path.join(claim, "nodes", NODE)
    prom = os.path.join(tree, f"var/lib/jetgate/metrics/jetgate-{GATE}.prom")
    labels = os.path.join(tree, f"etc/kubernetes/node-feature-discovery/features.d/jetgate-{GATE}")
    logs = ""
    for _ in range(600):
        logs = podman("logs", "daemonset", check_rc=False).stderr
        if "next run in" in logs:
            break
        time.sleep(0.2)
    check("run 1 exited" in logs and "next run in" in logs, f"daemonset: the first run ended and the loop waits: {logs[-1500:]}")
    state = podman("inspect", "--format", "{{.State.Running}}", "daemonset").stdout.strip()
    check(state == "true", "daemonset: still running after the first run (which failed here: no GPU)")
    runs = os.path.join(evd, "runs")
    stamps = sorted(os.listdir(runs)) if os.path.isdir(runs) else []
    check(len(stamps) == 1 and os.path.isfile(os.path.join(runs, stamps[0], f"{GATE}.json")),
          f"daemonset: the run's evidence is kept dated under runs/ ({stamps})")
    doc = json.load(open(os.path.join(evd, f"{GATE}.json"))) if os.path.isfile(os.path.join(evd, f"{GATE}.json")) else {}
    if check(bool(doc), f"daemonset: the evidence is on the claim, in the node's directory ({CLAIM}/nodes/{NODE})"):
        evidence_checks("daemonset", doc, tree)
    ptext = open(prom).read() if os.path.isfile(prom) else ""
    check(f'jetgate_gate_status{{gate="{GATE}"' in ptext or "jetgate_gate_status{" in ptext,
          "daemonset: the node_exporter textfile is on the host")
    ltext = open(labels).read() if os.path.isfile(labels) else ""
    check(f"jetgate.feature.node.kubernetes.io/gate-status={doc.get('status')}\n" in ltext,
          "daemonset: the NFD labels are on the host and say the evidence's status")
    t1 = time.monotonic()
    podman("stop", "--time", "30", "daemonset")
    stop_s = time.monotonic() - t1
    code = podman("inspect", "--format", "{{.State.ExitCode}}", "daemonset").stdout.strip()
    logs = podman("logs", "daemonset", check_rc=False).stderr
    check(code == "0", f"daemonset: exit 0 on SIGTERM (got {code})")
    check("stopped by SIGTERM" in logs, "daemonset: it says it stopped on SIGTERM")
    check(stop_s < 10, f"daemonset: stopped in {stop_s:.1f} s (a pod's grace period is 30 s)")
    check("install git" not in logs, "daemonset: a node validator is not told to install git")
    print(f"daemonset: {time.monotonic() - t0:.1f} s (stop {stop_s:.2f} s)", flush=True)
    podman("rm", "-f", "daemonset")

    # From the nodes' kept evidence to the fleet history: the CronJob's pod, jetgate alone
    # (no shell, no SSH), over the same claim.
    t0 = time.monotonic()
    args, _ = podman_run_args(cron["spec"]["jobTemplate"]["spec"]["template"], "cronjob", tree,
                              volumes, configmaps)
    r = podman(*args, check_rc=False)
    check(r.returncode == 0, f"cronjob: history ingest exit 0 ({r.stderr[-800:]})")
    db = os.path.join(claim, "fleet.db")
    check(os.path.isfile(db), f"cronjob: the database is on the claim ({CLAIM}/fleet.db)")
    podman("rm", "-f", "cronjob")
    q = subprocess.run(
        ["python3", "-c",
         "import sqlite3, sys\n"
         "c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)\n"
         "print(c.execute('select count(*), count(distinct node), min(node), min(status) from runs').fetchone())",
         db], capture_output=True, text=True)
    # The kept copy and the latest GATE.json are the same bytes: one run.
    check(q.returncode == 0 and q.stdout.strip() == f"(1, 1, '{NODE}', '{doc.get('status')}')",
          f"cronjob: the database holds the node's run once: {q.stdout.strip()} {q.stderr[-300:]}")
    print(f"cronjob: {time.monotonic() - t0:.1f} s", flush=True)

    # node-problem-detector's rule: the plain binary at the rule's path with its args, in
    # the same image, with the DaemonSet's mounts (the evidence directory they share).
    t0 = time.monotonic()
    rule = npd["rules"][0]
    args, _ = podman_run_args(ds["spec"]["template"], "npd", tree, volumes, configmaps,
                              command=[rule["path"]], args=rule["args"])
    r = podman(*args, check_rc=False)
    check(r.returncode in (0, 1), f"npd: exit {r.returncode}, OK or NonOK to NPD: {r.stderr[-1500:]}")
    first = r.stdout.splitlines()[0] if r.stdout else ""
    check(first.startswith(f"{GATE}: "), f"npd: the condition's message starts '{GATE}: ' ({first[:80]!r})")
    print(f"npd: {time.monotonic() - t0:.1f} s", flush=True)
    podman("rm", "-f", "npd")

    # The image itself: /etc/os-release says what it is.
    r = podman("image", "mount", IMAGE, check_rc=False)
    if r.returncode == 0:
        root = r.stdout.strip()
        check(os.path.exists(os.path.join(root, "etc/os-release")), "image: /etc/os-release exists")
        podman("image", "unmount", IMAGE, check_rc=False)

    if failures:
        print(f"run_pods.py: {len(failures)} check(s) failed", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
