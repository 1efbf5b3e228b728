# SPDX-License-Identifier: Apache-2.0
# Sourced by the scripts that run jetgate's emitted artefacts in rootful podman
# (tests/k8s/run-pods.sh, tests/container-lane/run.sh). The settings this sandbox
# needs live here, never in what jetgate writes: runc (crun refuses this kind of
# machine's cgroups), the vfs storage driver, no default ulimits, cgroupfs, events to a
# file; podman's storage lives in a temporary directory that the EXIT trap removes with
# this run's containers and images (not `podman system reset`, which also removes the
# machine's network definitions).
#
# After sourcing: $work is the temporary directory; CONTAINERS_CONF and
# CONTAINERS_STORAGE_CONF are exported. Call podman_sandbox PREFIX first.
podman_sandbox() {
  work=$(mktemp -d "/var/tmp/$1.XXXXXX")
  trap podman_sandbox_cleanup EXIT
  mkdir -p "$work/conf"
  cat >"$work/conf/containers.conf" <<CONF
[containers]
default_ulimits = []
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$work/events.log"
tmp_dir = "$work/libpod-tmp"
CONF
  cat >"$work/conf/storage.conf" <<CONF
[storage]
driver = "vfs"
runroot = "$work/run"
graphroot = "$work/graph"
CONF
  export CONTAINERS_CONF="$work/conf/containers.conf"
  export CONTAINERS_STORAGE_CONF="$work/conf/storage.conf"
}

podman_sandbox_cleanup() {
  if [ -n "${podman_service_pid:-}" ]; then kill "$podman_service_pid" 2>/dev/null || true; fi
  podman rm -af -t 0 >/dev/null 2>&1 || true
  podman rmi -af >/dev/null 2>&1 || true
  rm -rf "$work"
}
