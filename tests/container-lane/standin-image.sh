#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prints the path of a root filesystem tarball that stands in for NVIDIA's JetPack
# container images (nvcr.io/nvidia/l4t-jetpack and the images built on it), which this
# machine cannot pull: Debian 12 (bookworm, minbase) from Debian's registry with
# mmdebstrap, plus what a JetPack image with a test runner offers the generated
# container lane: python3 with venv and pip, pytest, setuptools and git. `podman import`
# makes it an image. Like the real images it runs apt, so a Dockerfile can build on it.
#
# What it does not stand in for: Ubuntu 22.04's package versions, the CUDA libraries and
# the NVIDIA container runtime (no GPU here; docs/conditional-testing.md says what the
# container-lane run proves).
#
# Usage: tests/container-lane/standin-image.sh [CACHE_DIR]
#   CACHE_DIR  where the tarball is kept between runs (default /var/cache/jetgate-standin);
#              it is rebuilt when the package list below changes.
# Needs root and mmdebstrap (scripts/install-deps.sh --ci).
set -euo pipefail
suite=bookworm
packages=python3,python3-venv,python3-pip,python3-pytest,python3-setuptools,git
cache=${1:-/var/cache/jetgate-standin}
die() { echo "standin-image.sh: $*" >&2; exit 2; }
command -v mmdebstrap >/dev/null || die "mmdebstrap is missing: run scripts/install-deps.sh --ci"
key=$(printf '%s %s\n' "$suite" "$packages" | sha256sum | cut -c1-16)
out="$cache/jetpack-standin-$suite-$key.tar"
if [ ! -s "$out" ]; then
  mkdir -p "$cache"
  tmp=$(mktemp "$cache/.partial.XXXXXX")
  # Quiet on success; mmdebstrap's log goes to stderr when it fails.
  if ! mmdebstrap --quiet --variant=minbase --include="$packages" "$suite" "$tmp" 2>"$tmp.log"; then
    cat "$tmp.log" >&2; rm -f "$tmp" "$tmp.log"; die "mmdebstrap failed (see above)"
  fi
  rm -f "$tmp.log"
  mv "$tmp" "$out"
fi
echo "$out"
