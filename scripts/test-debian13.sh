#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds jetgate with JetPack 7's toolchain generation (GCC 13, CMake >= 3.28) and runs
# the whole test suite, inside a Debian 13 (trixie) chroot: trixie has g++-13 (its
# default g++ is 14) and CMake 3.31. Nothing of trixie touches the host's apt sources.
#
# Usage: scripts/test-debian13.sh [options] [DIR]      (run as root)
#   DIR           the chroot, created with mmdebstrap when missing, reused when it holds
#                 trixie (default /var/tmp/jetgate-trixie)
#   --jobs N      parallel build and test jobs (default 2)
#   --nice N      niceness of the build and the tests (default 15)
#   --ccache DIR  ccache directory on the host, bind-mounted into the chroot
#                 (default DIR-ccache)
#   --pch         keep JETGATE_PCH on (the default build); off by default here, since
#                 a precompiled header defeats ccache and re-runs should be quick
#   --fresh       remove the chroot's build directory first (ccache still applies)
#   --patch FILE  apply FILE (a -p1 diff) to the chroot's copy of the source, never to
#                 the worktree: to try a proposed fix (repeatable)
#   -h, --help    this text
#
# The source is the worktree this script lives in, copied with `git archive` (HEAD plus
# uncommitted changes to tracked files, via `git stash create`). The build is the one
# of scripts/test.sh (RelWithDebInfo at -O1, -DJETGATE_WERROR=ON), with
# CC=gcc-13 CXX=g++-13 and -DJETGATE_WITH_CUDA=OFF (no CUDA toolkit in the chroot).
# GoogleTest is built from trixie's own source (/usr/src/googletest) with g++-13 into
# /opt/gtest-gcc13 of the chroot, once: trixie's libgtest.a is built by GCC 14 and calls
# __cxa_call_terminate@CXXABI_1.3.15, which GCC 13's libstdc++.so does not export, so the
# test binary does not link against it with g++-13. Ubuntu 24.04 (JetPack 7) builds its
# libgtest.a with GCC 13; this is Debian 13's mix of compilers, not JetPack 7's.
# The same holds for every other C++ library of trixie that jetgate links (libre2.so calls
# __cxa_call_terminate too): trixie's libstdc++-13-dev carries a link-time libstdc++.so of
# GCC 13, while the runtime libstdc++.so.6 on the machine (and in the binaries' DT_NEEDED)
# is GCC 14's. The shipped `jetgate` already links as the release does
# (JETGATE_STATIC_RUNTIME: GCC 13's libstdc++.a inside, and libre2.so's GCC 14 references
# resolved against the runtime libstdc++.so.6 given on the link line); the test binary is
# linked the same way here (CMAKE_EXE_LINKER_FLAGS: the runtime library, -static-libstdc++,
# -static-libgcc), so the suite tests the binary as it ships and no symbol is left
# undefined or ignored. Linked against GCC 13's link-time libstdc++.so alone, it fails with
# "libre2.so: undefined reference to __cxa_call_terminate@CXXABI_1.3.15".
# Prints the compiler and CMake versions, the time of each step and ctest's pass count;
# exits non-zero when any step or any test fails.
set -euo pipefail

usage() { sed -n '3,26p' "$0" | sed 's/^# \{0,1\}//'; }

dir=/var/tmp/jetgate-trixie
jobs=2
niceness=15
ccache_host=""
pch=OFF
fresh=0
patches=()
while (($#)); do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --jobs) [ $# -ge 2 ] || { echo "test-debian13.sh: --jobs needs a number" >&2; exit 2; }
            jobs=$2; shift ;;
    --nice) [ $# -ge 2 ] || { echo "test-debian13.sh: --nice needs a number" >&2; exit 2; }
            niceness=$2; shift ;;
    --ccache) [ $# -ge 2 ] || { echo "test-debian13.sh: --ccache needs a directory" >&2; exit 2; }
              ccache_host=$2; shift ;;
    --pch) pch=ON ;;
    --fresh) fresh=1 ;;
    --patch) { [ $# -ge 2 ] && [ -f "$2" ]; } || { echo "test-debian13.sh: --patch needs a file" >&2; exit 2; }
             patches+=("$(realpath "$2")"); shift ;;
    -*) echo "test-debian13.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) dir=$1 ;;
  esac
  shift
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "test-debian13.sh: --jobs: '$jobs' is not a positive number" >&2; exit 2; }
[[ "$niceness" =~ ^-?[0-9]+$ ]] || { echo "test-debian13.sh: --nice: '$niceness' is not a number" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "test-debian13.sh: needs root (chroot, mount)" >&2; exit 2; }
dir=$(realpath -m "$dir")
[ "$dir" != / ] || { echo "test-debian13.sh: refusing / as the chroot" >&2; exit 2; }
ccache_host=$(realpath -m "${ccache_host:-$dir-ccache}")

repo=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '== %s\n' "$*"; }

# What the build needs: the packages of scripts/install-deps.sh without --ci (read from
# it, so the two lists cannot drift apart), plus GCC 13 (trixie's build-essential brings
# GCC 14) and ccache.
mapfile -t packages < <(
  # shellcheck disable=SC2016  # expanded by the inner bash
  bash -c 'set -e; eval "$(sed -n "/^libraries=(/,/^)/p" "$1")"; printf "%s\n" "${packages[@]}"' \
    _ "$repo/scripts/install-deps.sh")
((${#packages[@]} > 5)) || { echo "test-debian13.sh: no package list in scripts/install-deps.sh" >&2; exit 2; }
for p in "${packages[@]}"; do
  [[ "$p" =~ ^[a-z0-9][a-z0-9.+-]*$ ]] || { echo "test-debian13.sh: odd package name '$p'" >&2; exit 2; }
done
packages+=(gcc-13 g++-13 ccache)

# The Debian mirror this machine's apt uses (deb822 or one-line format), as in
# scripts/old-cmake.sh.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\/debian\) .*/\2/p' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
[ -n "$mirror" ] || { echo "test-debian13.sh: no Debian mirror in /etc/apt sources" >&2; exit 2; }

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -lR "${mounted[i]}" || true
  done
}
trap cleanup EXIT
bind() {  # bind HOST_PATH PATH_IN_CHROOT [mount options]
  mkdir -p "$dir$2"
  mount --rbind "$1" "$dir$2"
  mount --make-rslave "$dir$2"
  mounted+=("$dir$2")
}
in_chroot() {
  chroot "$dir" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
    HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

# 1. The chroot.
t0=$SECONDS
if [ -f "$dir/etc/os-release" ] && grep -qx 'VERSION_CODENAME=trixie' "$dir/etc/os-release"; then
  log "reusing the trixie chroot in $dir"
  missing=()
  for p in "${packages[@]}"; do
    # shellcheck disable=SC2016  # dpkg-query's own ${field} syntax
    in_chroot dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing into it: ${missing[*]}"
    cp -L /etc/resolv.conf "$dir/etc/resolv.conf"
    mount -t proc proc "$dir/proc"; mounted+=("$dir/proc")
    in_chroot apt-get update -qq
    in_chroot apt-get install -y -qq --no-install-recommends "${missing[@]}"
    umount "$dir/proc"; unset 'mounted[-1]'
  fi
else
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    echo "test-debian13.sh: $dir exists, is not empty and holds no trixie chroot" >&2; exit 2
  fi
  command -v mmdebstrap >/dev/null || { echo "test-debian13.sh: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 2; }
  log "creating a trixie chroot in $dir from $mirror"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  mmdebstrap --variant=apt --mode=root --keyring="$keyring" --aptopt='APT::Install-Recommends "false"' \
    --include="$(IFS=,; echo "${packages[*]}")" \
    trixie "$dir" "deb $mirror trixie main" "deb $mirror trixie-updates main"
fi
t_chroot=$((SECONDS - t0))

# 2. The source, the cache and what the tests need of /proc, /dev and /sys.
t0=$SECONDS
rev=$(git -C "$repo" stash create)
rev=${rev:-HEAD}
log "source: $repo at $(git -C "$repo" rev-parse --short HEAD)$([ "$rev" = HEAD ] || echo ' plus uncommitted changes')"
rm -rf "$dir/src/jetgate"
mkdir -p "$dir/src/jetgate" "$ccache_host"
git -C "$repo" archive --format=tar "$rev" | tar -x -C "$dir/src/jetgate"
for p in "${patches[@]}"; do
  log "applying $p to the chroot's copy"
  (cd "$dir/src/jetgate" && git apply -p1 "$p")
done
# A repository of its own, one commit of the copy: tests read HEAD (GitShaTest) and find
# the checkout's root by its .git (PolicyTest.CoveragePathsResolveAgainstTheRepositoryRoot).
in_chroot git -C /src/jetgate init -q
in_chroot git -C /src/jetgate add -A
in_chroot git -C /src/jetgate -c user.name=test-debian13 -c user.email=test-debian13@localhost \
  commit -qm "copy of $(git -C "$repo" rev-parse HEAD)"
((fresh)) && rm -rf "$dir/build/jetgate"
mount -t proc proc "$dir/proc"; mounted+=("$dir/proc")
bind /dev /dev
bind /sys /sys
bind "$ccache_host" /ccache
t_copy=$((SECONDS - t0))

cxx_version=$(in_chroot g++-13 --version | head -1)
cmake_version=$(in_chroot cmake --version | head -1)
log "compiler: $cxx_version"
log "cmake:    $cmake_version"
log "ctest:    $(in_chroot ctest --version | head -1)"

# 3. Configure and build (scripts/test.sh's flags), 4. the suite.
build_env=(CC=gcc-13 CXX=g++-13 CCACHE_DIR=/ccache CCACHE_MAXSIZE=5G
           "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
           CCACHE_BASEDIR=/src/jetgate)
t0=$SECONDS
built=0
gtest=/opt/gtest-gcc13
triplet=$(in_chroot gcc-13 -dumpmachine)
runtime_libstdcxx=/usr/lib/$triplet/libstdc++.so.6
[ -e "$dir$runtime_libstdcxx" ] || { echo "test-debian13.sh: no $runtime_libstdcxx in the chroot" >&2; exit 1; }
log "runtime C++ library: $(readlink -f "$dir$runtime_libstdcxx" | sed "s|^$dir||")"
if [ ! -f "$dir$gtest/lib/cmake/GTest/GTestConfig.cmake" ]; then
  log "building GoogleTest with g++-13 into $gtest"
  in_chroot "${build_env[@]}" nice -n "$niceness" cmake -S /usr/src/googletest -B /build/googletest \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$gtest" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
  in_chroot "${build_env[@]}" nice -n "$niceness" cmake --build /build/googletest -j "$jobs" >/dev/null
  in_chroot cmake --install /build/googletest >/dev/null
fi
if in_chroot "${build_env[@]}" nice -n "$niceness" cmake -S /src/jetgate -B /build/jetgate \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -DNDEBUG" -DJETGATE_WERROR=ON -DJETGATE_WITH_CUDA=OFF \
  -DJETGATE_BUILD_TESTS=ON -DJETGATE_PCH="$pch" -DGTest_DIR="$gtest/lib/cmake/GTest" \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  "-DCMAKE_EXE_LINKER_FLAGS=$runtime_libstdcxx -static-libstdc++ -static-libgcc" >/dev/null &&
   in_chroot "${build_env[@]}" nice -n "$niceness" cmake --build /build/jetgate -j "$jobs"; then
  built=1
fi
t_build=$((SECONDS - t0))
if ((!built)); then
  echo
  log "compiler: $cxx_version"
  log "cmake:    $cmake_version"
  log "time: chroot ${t_chroot}s, source copy ${t_copy}s, configure+build ${t_build}s"
  log "FAILED: the configure or the build (its first error is above); no test ran"
  exit 1
fi
in_chroot "${build_env[@]}" ccache -s || true

t0=$SECONDS
status=0
in_chroot /bin/sh -c "cd /build/jetgate && nice -n $niceness ctest --output-on-failure -j $jobs --timeout 300" \
  | tee "$dir/build/jetgate/ctest.log" || status=$?
t_test=$((SECONDS - t0))
summary=$(grep -E 'tests passed, [0-9]+ tests? failed out of' "$dir/build/jetgate/ctest.log" || true)

echo
# shellcheck disable=SC2016  # dpkg-query's own ${field} syntax
log "Debian 13 (trixie), $(in_chroot dpkg-query -W -f='libc6 ${Version}' libc6)"
log "compiler: $cxx_version"
log "cmake:    $cmake_version"
log "time: chroot ${t_chroot}s, source copy ${t_copy}s, configure+build ${t_build}s, tests ${t_test}s"
log "ctest: ${summary:-no summary line (see $dir/build/jetgate/ctest.log)}"
if ((status)) || [ -z "$summary" ]; then
  log "FAILED"
  exit 1
fi
log "OK"
