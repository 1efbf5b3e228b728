# `cmake --install`: the jetgate binary (stripped), its man page and docs (component
# "runtime"), and the core library with its headers and a CMake package config
# (component "dev": find_package(jetgate) gives jetgate::core).

option(JETGATE_INSTALL_STRIP "Strip the installed binary (as cmake --install --strip does)" ON)
if(JETGATE_INSTALL_STRIP)
  # cmake_install.cmake tests this variable before stripping; set it ahead of the
  # binary's install rule so a plain `cmake --install` strips too.
  install(CODE "set(CMAKE_INSTALL_DO_STRIP TRUE)" COMPONENT runtime)
endif()
install(TARGETS jetgate RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/jetgate-record-root.sh
        DESTINATION ${CMAKE_INSTALL_BINDIR} RENAME jetgate-record-root COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT runtime)

# The man page comes from the binary's own --help and --version (help2man), so it
# cannot drift from the options. A cross build runs the binary under the emulator.
find_program(JETGATE_HELP2MAN help2man)
find_program(JETGATE_GZIP gzip)
option(JETGATE_MAN_PAGE "Generate and install jetgate.1 with help2man" ON)
if(JETGATE_MAN_PAGE AND JETGATE_HELP2MAN AND JETGATE_GZIP AND
   (NOT CMAKE_CROSSCOMPILING OR CMAKE_CROSSCOMPILING_EMULATOR))
  set(man_exe $<TARGET_FILE:jetgate>)
  if(CMAKE_CROSSCOMPILING)
    # help2man names the page after the file it runs: the wrapper is called jetgate.
    string(REPLACE ";" " " emulator "${CMAKE_CROSSCOMPILING_EMULATOR}")
    set(man_exe ${CMAKE_CURRENT_BINARY_DIR}/emulated/jetgate)
    # file(GENERATE) sets permissions only from CMake 3.20 on: write, then copy with
    # them. The program lands in the build directory itself (no output directory set).
    file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/emulated.in/jetgate
         "#!/bin/sh\nexec ${emulator} ${CMAKE_CURRENT_BINARY_DIR}/jetgate \"$@\"\n")
    file(COPY ${CMAKE_CURRENT_BINARY_DIR}/emulated.in/jetgate
         DESTINATION ${CMAKE_CURRENT_BINARY_DIR}/emulated
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                          WORLD_READ WORLD_EXECUTE)
  endif()
  set(man_page ${CMAKE_CURRENT_BINARY_DIR}/man/jetgate.1)
  add_custom_command(
    OUTPUT ${man_page}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND ${JETGATE_HELP2MAN} --no-info --no-discard-stderr
            --name "evidence that GPU compute works on NVIDIA Jetson and CUDA machines"
            --include ${PROJECT_SOURCE_DIR}/cmake/jetgate.h2m --output ${man_page} ${man_exe}
    # -n: no name or timestamp in the gzip header, so the .deb is reproducible.
    COMMAND ${JETGATE_GZIP} -9nf ${man_page}
    DEPENDS jetgate ${PROJECT_SOURCE_DIR}/cmake/jetgate.h2m
    COMMENT "help2man: jetgate.1"
    VERBATIM)
  add_custom_target(jetgate_man ALL DEPENDS ${man_page}.gz)
  install(FILES ${man_page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
elseif(JETGATE_MAN_PAGE)
  message(STATUS "jetgate: help2man or gzip not found (or no emulator for this cross build); "
                 "no man page")
endif()

set_target_properties(jetgate_core PROPERTIES EXPORT_NAME core)
install(TARGETS jetgate_core EXPORT jetgateTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/jetgate/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/jetgate
        COMPONENT dev FILES_MATCHING PATTERN "*.hpp")
set(JETGATE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/jetgate)
install(EXPORT jetgateTargets NAMESPACE jetgate:: DESTINATION ${JETGATE_CMAKE_DIR}
        COMPONENT dev)
include(CMakePackageConfigHelpers)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/jetgateConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/jetgateConfig.cmake
                              INSTALL_DESTINATION ${JETGATE_CMAKE_DIR})
# 0.x: a new minor version may change the library's API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/jetgateConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/jetgateConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/jetgateConfigVersion.cmake
        DESTINATION ${JETGATE_CMAKE_DIR} COMPONENT dev)
