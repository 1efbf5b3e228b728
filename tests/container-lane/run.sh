#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the container lane of the workflow `jetgate init` writes, step by step as a
# self-hosted runner runs it, with a real container runtime: rootful podman's API
# service stands in for dockerd (the runner's user is its client, as with docker), the
# image is a Debian stand-in for NVIDIA's JetPack images
# (tests/container-lane/standin-image.sh), and the install action fetches the release
# TARBALL from 127.0.0.1. tests/fixtures/init/workflow_tool.py (container-lane) runs the
# job and asserts: the gate passes inside the container with the project's tests
# pip-installed there, the evidence names the commit, every file the container wrote in
# the checkout is the runner's and `git clean` as the runner leaves it clean; and that a
# container run as root (the step's --user taken out) is caught.
#
# Usage: tests/container-lane/run.sh TARBALL
#   TARBALL  a release tarball of scripts/build-release.sh for this machine's
#            architecture (dist/jetgate-VERSION-linux-x86_64.tar.gz)
# Needs root, podman, runc, mmdebstrap, setpriv and python3-yaml
# (scripts/install-deps.sh --ci). podman's settings: tests/podman-sandbox.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "container-lane/run.sh: $*" >&2; exit 2; }
case "${1:-}" in
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  '') die "usage: tests/container-lane/run.sh TARBALL" ;;
esac
tarball=$(realpath "$1")
[ -f "$tarball" ] || die "$1: no such file (build it with scripts/build-release.sh)"
[ "$(id -u)" = 0 ] || die "run as root: rootful podman"
for tool in podman runc mmdebstrap setpriv python3; do
  command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh --ci"
done
# The recorded Jetson whose release file the container lane mounts.
tegra=$PWD/tests/fixtures/agx-orin-64gb-jp62/root/etc/nv_tegra_release
[ -f "$tegra" ] || die "$tegra: no such recorded file"

start=$SECONDS
rootfs=$(bash tests/container-lane/standin-image.sh)
. tests/podman-sandbox.sh
podman_sandbox jetgate-container-lane
image=localhost/jetpack-standin:r36
podman import -q "$rootfs" "$image" >/dev/null
chmod 755 "$work"
podman system service --time=0 "unix://$work/podman.sock" >"$work/service.log" 2>&1 &
podman_service_pid=$!
for _ in $(seq 50); do [ -S "$work/podman.sock" ] && break; sleep 0.1; done
[ -S "$work/podman.sock" ] || { cat "$work/service.log" >&2; die "podman's service did not start"; }
# The runner's user is the service's client, as a user in the docker group is dockerd's.
chmod 666 "$work/podman.sock"
python3 tests/fixtures/init/workflow_tool.py container-lane "$tarball" "$image" \
  "$work/podman.sock" "$tegra"
echo "container-lane/run.sh: the container lane ran in podman $(podman --version |
  awk '{print $3}') with runc in $((SECONDS - start)) s"
