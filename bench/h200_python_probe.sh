#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python ML probes (python_runtime, bitsandbytes) on a GPU host with a real
# torch (the lent NVIDIA H200): builds jetgate unless a usable build is given,
# then records `jetgate probe --ml --json`, a gate that requires both probes to
# PASS, and the GPU tests (PythonGpu.*). Writes at most 7 files into $OUT.
#
# Usage: OUT=DIR bench/h200_python_probe.sh [BUILD_DIR]
#   BUILD_DIR  a build holding jetgate and tests/jetgate_tests (e.g. one built
#              on a Debian 12 machine and carried over); when absent or not
#              runnable here, the script configures and builds build-gpu/.
# Environment: PYTHON (default python3: the interpreter that holds torch);
#   BNB_WHEEL_DIR (default .whl): a bitsandbytes wheel found there is installed
#   into a scratch directory without any index (pip --no-index --no-deps) and
#   put on PYTHONPATH; nothing is downloaded.
# What it should show on an H200 (docs/python-runtime.md): python_runtime PASS
# ("runs sm_90 kernels; elementwise, matmul (cuBLAS) and conv2d (cuDNN ...)
# match the CPU"), every kernel check with max_error_ratio 0; bitsandbytes PASS
# with every *_max_error_ratio <= 1 when it is installed, WARN "not installed"
# otherwise (and then the gate fails on it, as it must).
set -uo pipefail
: "${OUT:?set OUT to the directory for the results}"
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
build=${1:-}
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

say "# bench/h200_python_probe.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
say "== machine"
say "$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2)"

say "== python and torch ($python)"
"$python" - >>"$summary" 2>&1 <<'PY'
import sys
print("python", sys.version.split()[0], sys.executable)
try:
    import torch
    print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())
    if torch.cuda.is_available():
        print("device", torch.cuda.get_device_name(0), "capability", torch.cuda.get_device_capability(0))
        print("arch_list", torch.cuda.get_arch_list())
        print("cudnn", torch.backends.cudnn.is_available(), torch.backends.cudnn.version())
except Exception as exc:  # what jetgate will report too
    print("torch: %s: %s" % (type(exc).__name__, exc))
PY
tail -5 "$summary"

say "== bitsandbytes"
wheel=$(ls "${BNB_WHEEL_DIR:-$here/.whl}"/bitsandbytes-*.whl 2>/dev/null | head -1)
if [[ -n "$wheel" ]]; then
  if "$python" -m pip install --quiet --no-index --no-deps --target "$work/site" "$wheel" >>"$summary" 2>&1; then
    export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
    say "installed $(basename "$wheel") into a scratch directory (no index, no dependencies)"
  else
    say "could not install $(basename "$wheel") from its file"
  fi
fi
"$python" - 2>&1 <<'PY' | tee -a "$summary"
import importlib.util
try:
    from importlib import metadata
    version = metadata.version("bitsandbytes")
except Exception:
    version = None
if importlib.util.find_spec("bitsandbytes") is None and version is None:
    print("bitsandbytes is NOT installed for this interpreter: the bitsandbytes probe will be WARN "
          "(not installed) and the gate below fails on it; put a bitsandbytes wheel into .whl/ to test it")
else:
    print("bitsandbytes is installed:", version or "(no metadata)")
PY

say "== build"
usable() { [[ -n "$1" && -x "$1/jetgate" && -x "$1/tests/jetgate_tests" ]] && "$1/jetgate" --version >/dev/null 2>&1; }
if usable "$build"; then
  say "using $build ($("$build/jetgate" --version 2>&1 | head -1))"
else
  [[ -n "$build" ]] && say "$build has no jetgate that runs here; building build-gpu/"
  build="$here/build-gpu"
  t0=$(ms)
  if cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$work/build.log" 2>&1 &&
     cmake --build "$build" -j "$(nproc)" >>"$work/build.log" 2>&1; then
    say "built in $(( $(ms) - t0 )) ms"
  else
    tail -40 "$work/build.log" >"$OUT/build.log"
    say "build FAILED (last lines in build.log); install scripts/install-deps.sh's packages, or build on Debian 12 and pass that build directory"
    exit 2
  fi
fi
jg="$build/jetgate"

say "== jetgate probe --ml --json"
t0=$(ms)
"$jg" probe --ml --python "$python" --json >"$OUT/probe-ml.json" 2>"$work/probe.stderr"
status=$?
say "probe --ml --json: exit $status in $(( $(ms) - t0 )) ms"
"$jg" probe --ml --python "$python" >"$OUT/probe-ml.txt" 2>&1
say "$(sed -n '/^Python ML runtime/,$p' "$OUT/probe-ml.txt")"
"$python" - "$OUT/probe-ml.json" 2>&1 <<'PY' | tee -a "$summary"
import json, sys
doc = json.load(open(sys.argv[1]))
for probe in ("python_runtime", "bitsandbytes"):
    r = doc.get("probes", {}).get(probe)
    if r is None:
        print(probe, "missing from /probes")
        continue
    print(probe, r["status"], {k: v["value"] for k, v in r["values"].items()}, r.get("details", {}).get("arch", ""))
compute = doc["python"]["torch"]["compute"]
for check in ("elementwise", "matmul", "conv"):
    print("torch", check, json.dumps(compute.get(check)))
bnb = doc["python"]["bitsandbytes"]["compute"]
for check in ("nf4", "fp4", "int8_blockwise", "int8_matmul"):
    print("bitsandbytes", check, json.dumps(bnb.get(check)))
PY

say "== a gate that requires python_runtime and bitsandbytes to PASS"
cat >"$work/policy.json" <<'JSON'
{"schema_version": 1, "owner": "bench", "cadence": "once", "evidence_retention_days": 30,
 "maximum_evidence_age_days": 30,
 "gates": [{"id": "python-ml-runtime", "requires": {"cuda": true},
            "probes": [{"probe": "python_runtime", "status": "PASS"},
                       {"probe": "bitsandbytes", "status": "PASS"}]}]}
JSON
t0=$(ms)
"$jg" run python-ml-runtime --policy "$work/policy.json" --evidence-dir "$work/evidence" \
  --repo-root "$work" --python "$python" >"$OUT/gate.txt" 2>&1
status=$?
say "run python-ml-runtime: exit $status in $(( $(ms) - t0 )) ms"
cp "$work/evidence/python-ml-runtime.json" "$OUT/gate-evidence.json" 2>/dev/null || say "no evidence written"
say "$(cat "$OUT/gate.txt")"

say "== GPU tests (PythonGpu.*, CudaGpu.*)"
JETGATE_TEST_PYTHON="$python" "$build/tests/jetgate_tests" --gtest_filter='PythonGpu.*:CudaGpu.*' \
  >"$OUT/gpu-tests.txt" 2>&1
status=$?
say "jetgate_tests PythonGpu.*:CudaGpu.*: exit $status"
say "$(grep -E '^\[ *(OK|FAILED|SKIPPED|PASSED) *\]|max_error_ratio|Failure|Expected|Which is' "$OUT/gpu-tests.txt")"
