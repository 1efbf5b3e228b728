#!/usr/bin/env bash
# Installs what jetgate needs to build and test, from Debian 12's packages only.
# The CUDA toolkit is optional: with nvcc on PATH or in /usr/local/cuda the
# build embeds GPU kernels; without it, kernel probes report NOT_RUN.
set -euo pipefail
packages=(
  build-essential cmake git pkg-config
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libgmock-dev
  libpugixml-dev libyaml-cpp-dev libsodium-dev
  python3 python3-pytest python3-jsonschema
  clang-format
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
