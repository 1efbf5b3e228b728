# SPDX-License-Identifier: Apache-2.0
# CPack: `cpack -G DEB` in a build directory makes two Debian packages from the
# install rules (cmake/Install.cmake): jetgate (the binary, man page, docs) and
# jetgate-dev (the core library, headers, CMake package config).
set(CPACK_PACKAGE_NAME jetgate)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(JETGATE_PACKAGE_MAINTAINER "jetgate developers" CACHE STRING
    "Maintainer field of the .deb packages")
set(CPACK_PACKAGE_CONTACT "${JETGATE_PACKAGE_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME jetgate)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME jetgate-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The binary links libstdc++ statically: dpkg-shlibdeps finds only libc6.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# The Python ML runtime probe runs python3 when asked (probe --ml); not needed otherwise.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "python3")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "nlohmann-json3-dev (>= 3.10), libfmt-dev, libpugixml-dev, libyaml-cpp-dev, libyaml-dev, libsodium-dev, libre2-dev, libsqlite3-dev")
# Debian's architecture name of the target, not of the build machine (cross builds).
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
include(CPack)
