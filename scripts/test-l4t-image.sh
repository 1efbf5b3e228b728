#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds Dockerfile.l4t with podman on a stand-in for NVIDIA's base image and runs what
# it built. nvcr.io (l4t-jetpack, Ubuntu 22.04) is out of reach on CI's machine, so the
# base is made here: a Debian root filesystem from mmdebstrap (apt included;
# tests/container-lane/standin-image.sh, shared with the container lane), imported
# with `podman import` and tagged so that
#   podman build -f Dockerfile.l4t --build-arg L4T_IMAGE=localhost/l4t-standin \
#                --build-arg L4T_TAG=SUITE ...
# builds it, the toml++ stage included (TOMLPP_IMAGE is the same stand-in). That proves
# the Dockerfile's package lists (every library CMake requires resolves, every header
# compiles), its stages and its install layout. The stand-in has no CUDA toolkit: the
# build embeds the GPU kernels of another build (KERNELS, mounted at /kernels with
# `podman build -v`) as CI's other lanes do; on NVIDIA's base the image's nvcc builds them.
# The host's ccache is mounted too, so a second run compiles nothing that did not change.
#
# Then the image is started: its `jetgate --version`, and `jetgate probe --root ROOT
# --json` for every recorded machine under tests/fixtures, compared with its golden
# (scripts/check-goldens.py, through `podman exec` into one container).
#
# What it does not show: that NVIDIA's image has these packages at these names (Ubuntu
# 22.04's are older than Debian 12's, and the versions CMake accepts are checked by the
# GCC 11 / CMake 3.18 lane instead), nor nvcc in that image; see docs/image.md.
#
# Usage: scripts/test-l4t-image.sh [--keep DIR] KERNELS
#   KERNELS   a CUDA build's generated/jetgate (jetgate_kernels.fatbin and .cmake)
#   --keep    copy the image's jetgate and the build's log to DIR (they go with the
#             temporary storage otherwise)
# The settings this sandbox needs are in tests/podman-sandbox.sh, not in the Dockerfile
# (runc, vfs, no default ulimits, cgroupfs; storage in a temporary directory removed
# afterwards), and the build uses the host's network for apt.
# Needs root, podman, runc, mmdebstrap and python3 (scripts/install-deps.sh --ci).
set -euo pipefail
cd "$(dirname "$0")/.."
suite=bookworm kernels="" keep=""
die() { echo "test-l4t-image.sh: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=$2; shift ;;
    -h|--help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [ -z "$kernels" ] || die "one KERNELS directory, not '$kernels' and '$1'"; kernels=$1 ;;
  esac
  shift
done
[ -n "$kernels" ] || die "usage: scripts/test-l4t-image.sh [--keep DIR] KERNELS"
[ -f "$kernels/jetgate_kernels.cmake" ] && [ -f "$kernels/jetgate_kernels.fatbin" ] ||
  die "$kernels holds no jetgate_kernels.cmake and .fatbin: point it at a CUDA build's generated/jetgate"
kernels=$(realpath "$kernels")
[ "$(id -u)" = 0 ] || die "run as root: rootful podman, and mmdebstrap keeps the files' owners"
for tool in podman runc mmdebstrap python3; do
  command -v "$tool" >/dev/null || die "$tool is missing: run scripts/install-deps.sh --ci"
done
# The host's cache (ccache -k cache_dir: CCACHE_DIR or ccache's default for root).
ccache_dir=$(ccache -k cache_dir 2>/dev/null || echo /root/.cache/ccache)
mkdir -p "$ccache_dir"

. tests/podman-sandbox.sh
podman_sandbox jetgate-l4t
export BUILDAH_ISOLATION=chroot

t0=$SECONDS
stamp() { echo "test-l4t-image.sh: $1 ($((SECONDS - t0)) s)"; }
# The stand-in (tests/container-lane/standin-image.sh, shared with the container lane and
# kept between runs): Debian's minbase, Essential plus apt as a base image with apt
# offers, and python3 and git as the JetPack images have them.
standin=localhost/l4t-standin
podman import --quiet "$(bash tests/container-lane/standin-image.sh)" "$standin:$suite" >/dev/null
stamp "stand-in $standin:$suite imported"

podman build --quiet --network host --layers=false -f Dockerfile.l4t \
  --build-arg L4T_IMAGE="$standin" --build-arg L4T_TAG="$suite" \
  --build-arg TOMLPP_IMAGE="$standin:$suite" \
  --build-arg JETGATE_CMAKE_ARGS="-DJETGATE_PREBUILT_KERNELS=/kernels" \
  -v "$kernels:/kernels:ro" -v "$ccache_dir:/root/.cache/ccache" \
  -t localhost/jetgate-l4t:standin . >"$work/build.log" 2>&1 ||
  { tail -n 60 "$work/build.log" >&2; die "podman build -f Dockerfile.l4t failed (the log's end is above)"; }
stamp "Dockerfile.l4t built on $standin:$suite"

# The image as built: its jetgate runs, names itself, and reads every recorded machine
# as the host's binary does.
version=$(podman run --rm --network none localhost/jetgate-l4t:standin jetgate --version)
echo "test-l4t-image.sh: the image's jetgate --version: $version"
case "$version" in jetgate\ [0-9]*) ;; *) die "the image's jetgate --version printed '$version'" ;; esac
[ "$(podman run --rm --network none localhost/jetgate-l4t:standin readlink /opt/jetgate/bin/jetgate)" = \
  /usr/local/bin/jetgate ] || die "/opt/jetgate/bin/jetgate (node-problem-detector's path) is not the link"
fixtures=$PWD/tests/fixtures
podman run -d --name jetgate-l4t-proof --network none -v "$fixtures:$fixtures:ro" \
  localhost/jetgate-l4t:standin sleep infinity >/dev/null
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  podman cp jetgate-l4t-proof:/usr/local/bin/jetgate "$keep/jetgate"
  cp "$work/build.log" "$keep/build.log"
fi
printf '#!/bin/sh\nexec podman exec jetgate-l4t-proof "$@"\n' >"$work/in-image"
chmod +x "$work/in-image"
python3 scripts/check-goldens.py /usr/local/bin/jetgate "$work/in-image"
stamp "the image's jetgate matched every golden"
