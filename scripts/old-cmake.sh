#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Unpacks Debian 11's CMake (3.18.4, the oldest release jetgate claims to build with)
# into a private directory and prints the path of its cmake binary. Nothing is
# installed system-wide: apt runs with its own lists and cache, against the mirror
# this machine's apt already uses, and the packages are unpacked with dpkg-deb -x.
#
# Usage: scripts/old-cmake.sh [DIR]     (default /opt/jetgate-cmake-3.18)
# Prints a directory holding cmake and ctest 3.18 (wrappers that find their libraries):
#   PATH="$(scripts/old-cmake.sh):$PATH" cmake -S . -B build-old ...
set -euo pipefail
dest=${1:-/opt/jetgate-cmake-3.18}
suite=bullseye
want=3.18
if [ -x "$dest/bin/cmake" ] && "$dest/bin/cmake" --version | grep -q "version $want"; then
  echo "$dest/bin"
  exit 0
fi

# The Debian mirror this machine is configured with (deb822 or one-line format).
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\) .*/\2/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
[ -n "$mirror" ] || { echo "old-cmake.sh: no Debian mirror in /etc/apt sources" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
chmod -R 0777 "$work"
echo "deb $mirror $suite main" >"$work/sources.list"
: >"$work/status"  # nothing "installed": the candidates are Debian 11's
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
          -o "Dir::State::Lists=$work/lists" -o "Dir::State::status=$work/status"
          -o "Dir::Cache=$work/cache"
          -o APT::Architecture="$(dpkg --print-architecture)" -o APT::Architectures::=
          -o Debug::NoLocking=1 -qq)
apt-get "${apt_opts[@]}" update >&2
# cmake-data is its data (modules); libjsoncpp24 is the one library of Debian 11's
# CMake whose soname Debian 12 no longer has.
(cd "$work/debs" && apt-get "${apt_opts[@]}" download cmake cmake-data libjsoncpp24 >&2)
mkdir -p "$dest"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$dest"; done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
mkdir -p "$dest/bin"
for tool in cmake ctest cpack; do
  cat >"$dest/bin/$tool" <<EOF
#!/bin/sh
LD_LIBRARY_PATH="$dest/usr/lib/$multiarch\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$dest/usr/bin/$tool" "\$@"
EOF
  chmod +x "$dest/bin/$tool"
done
"$dest/bin/cmake" --version | grep -q "version $want" || {
  echo "old-cmake.sh: $dest/bin/cmake is not CMake $want" >&2; exit 1; }
echo "$dest/bin"
