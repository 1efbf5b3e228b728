# SPDX-License-Identifier: Apache-2.0
# Cross-compiles jetgate for aarch64 (every Jetson's CPU) on a Debian x86_64 host
# with Debian's g++-aarch64-linux-gnu and arm64 multiarch -dev packages
# (scripts/install-deps.sh --cross installs both).
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# Tests run under qemu-user through CMAKE_CROSSCOMPILING_EMULATOR, so ctest works
# whether or not binfmt_misc is registered for aarch64 on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

# JETGATE_CROSS_GCC_SUFFIX picks a versioned cross compiler (e.g. -11).
set(JETGATE_CROSS_GCC_SUFFIX "" CACHE STRING "Suffix of the cross compiler, e.g. -11")
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc${JETGATE_CROSS_GCC_SUFFIX})
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++${JETGATE_CROSS_GCC_SUFFIX})
# Debian multiarch: arm64 libraries and their CMake package files live under
# /usr/lib/aarch64-linux-gnu, beside (never instead of) the host's.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Multi-Arch: same packages (libre2-dev:arm64, libsodium-dev:arm64, ...) install beside
# the host's: find_library finds /usr/lib/aarch64-linux-gnu/libre2.a through
# CMAKE_LIBRARY_ARCHITECTURE, and never the host's x86_64 archive.
# Packages that are not Multi-Arch: same (libyaml-cpp-dev) cannot be installed for
# arm64 beside the host's copy; install-deps.sh unpacks them here instead.
set(JETGATE_CROSS_EXTRA_PREFIX /opt/jetgate-cross/aarch64-linux-gnu/usr
    CACHE PATH "Unpacked arm64 -dev packages that cannot be co-installed")
list(APPEND CMAKE_PREFIX_PATH ${JETGATE_CROSS_EXTRA_PREFIX})

# Build tools run on the host; libraries, headers and packages are the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

find_program(JETGATE_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(JETGATE_QEMU_AARCH64)
  # The arm64 dynamic loader and libc come from Debian's multiarch libc6:arm64 at
  # /lib/ld-linux-aarch64.so.1, so qemu needs no -L sysroot.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${JETGATE_QEMU_AARCH64})
endif()
