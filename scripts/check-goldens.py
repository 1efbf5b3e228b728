#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A jetgate binary prints the golden document for every recorded machine.

For each tests/fixtures/*/root with an expected.json beside it, runs
`[EMULATOR] JETGATE probe --root ROOT --json`, takes out what depends on the
checkout and the build (the root path becomes $ROOT, /jetgate is dropped, as
tests/unit/probe_root_cli_golden_test.cpp does) and compares the document with
expected.json. CI runs it on the cross-built aarch64 release binary under
qemu-user, so a difference in char signedness, alignment or syscalls on
aarch64 shows up as a diff without building the whole test suite for aarch64.

Usage: scripts/check-goldens.py JETGATE [EMULATOR]
Exit status: 0 every document matches, 1 one or more differ, 2 usage.
"""
import json
import pathlib
import subprocess
import sys


def normalized(output: str, root: str):
    doc = json.loads(output.replace(root, "$ROOT"))
    doc.pop("jetgate", None)
    doc["root"] = "$ROOT"
    return doc


def first_difference(expected, actual, path=""):
    if type(expected) is not type(actual):
        return f"{path or '/'}: expected {json.dumps(expected)[:120]}, got {json.dumps(actual)[:120]}"
    if isinstance(expected, dict):
        for key in sorted(set(expected) | set(actual)):
            if key not in actual:
                return f"{path}/{key}: missing"
            if key not in expected:
                return f"{path}/{key}: not expected"
            diff = first_difference(expected[key], actual[key], f"{path}/{key}")
            if diff:
                return diff
        return None
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items expected, {len(actual)} found"
        for i, (e, a) in enumerate(zip(expected, actual)):
            diff = first_difference(e, a, f"{path}/{i}")
            if diff:
                return diff
        return None
    return None if expected == actual else f"{path}: expected {json.dumps(expected)[:120]}, got {json.dumps(actual)[:120]}"


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    binary = argv[1]
    emulator = [argv[2]] if len(argv) == 3 else []
    fixtures = pathlib.Path(__file__).resolve().parent.parent / "tests" / "fixtures"
    roots = sorted(p for p in fixtures.iterdir() if (p / "root").is_dir() and (p / "expected.json").is_file())
    if not roots:
        print(f"check-goldens: no recorded roots under {fixtures}", file=sys.stderr)
        return 2
    failed = 0
    for fixture in roots:
        root = str(fixture / "root")
        run = subprocess.run(emulator + [binary, "probe", "--root", root, "--json"],
                             capture_output=True, text=True, errors="replace", timeout=120)
        if run.returncode != 0:
            print(f"FAIL {fixture.name}: exit {run.returncode}: {run.stderr.strip()[:300]}")
            failed += 1
            continue
        try:
            actual = normalized(run.stdout, root)
        except json.JSONDecodeError as exc:
            print(f"FAIL {fixture.name}: output is not JSON ({exc})")
            failed += 1
            continue
        expected = json.loads((fixture / "expected.json").read_text())
        diff = first_difference(expected, actual)
        if diff:
            print(f"FAIL {fixture.name}: {diff}")
            failed += 1
        else:
            print(f"ok   {fixture.name}")
    print(f"check-goldens: {len(roots) - failed} of {len(roots)} recorded machines match their goldens")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
