#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the pods `jetgate init --kubernetes` describes in a real OCI runtime: Debian's
# rootful podman with runc, over a recorded host tree, with the image
# scripts/build-image.sh built. The Job, the DaemonSet and node-problem-detector's
# plugin rule each run as `podman run` with exactly the manifest's command and args
# ($(VAR) expanded as the kubelet does), user, groups, capabilities, read-only root,
# no-new-privileges and volumes; tests/k8s/run_pods.py translates and asserts
# (docs/kubernetes.md, "What the pod run proves").
#
# Usage: tests/k8s/run-pods.sh [--fixture NAME] IMAGE_ARCHIVE
#   IMAGE_ARCHIVE  the OCI archive of scripts/build-image.sh
#                  (dist/image-amd64/jetgate-TAG.oci.tar); its architecture must be this
#                  machine's
#   --fixture      the recorded machine whose root is the host (default
#                  talos-orin-nx-mainline: a CDI spec in /var/run/cdi, no /lib/modules)
#
# The settings this sandbox needs are in tests/podman-sandbox.sh, not in the manifests
# (runc, vfs, no default ulimits, cgroupfs; storage in a temporary directory removed
# afterwards).
# Needs root, podman, runc and python3-yaml (scripts/install-deps.sh --ci).
set -euo pipefail
cd "$(dirname "$0")/../.."
fixture=talos-orin-nx-mainline archive=""
die() { echo "run-pods.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --fixture) fixture=$2; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown option '$1'" ;;
    *) [ -z "$archive" ] || die "one IMAGE_ARCHIVE, not '$archive' and '$1'"; archive=$1 ;;
  esac
  shift
done
[ -n "$archive" ] || die "usage: tests/k8s/run-pods.sh [--fixture NAME] IMAGE_ARCHIVE"
[ -f "$archive" ] || die "$archive: no such file (build it with scripts/build-image.sh)"
[ -d "tests/fixtures/$fixture/root" ] || die "tests/fixtures/$fixture/root: no such recorded machine"
[ "$(id -u)" = 0 ] || die "run as root: rootful podman"
for tool in podman runc python3; do
  command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh --ci"
done

. tests/podman-sandbox.sh
podman_sandbox jetgate-pods

start=$SECONDS
python3 tests/k8s/run_pods.py --work "$work" --fixture "tests/fixtures/$fixture/root" "$archive"
echo "run-pods.sh: the Job, the DaemonSet and the NPD rule ran in podman $(podman --version |
  awk '{print $3}') with runc in $((SECONDS - start)) s"
