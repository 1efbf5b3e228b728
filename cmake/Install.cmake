# SPDX-License-Identifier: Apache-2.0
# `cmake --install`: the jetgate binary (stripped), its man pages, bash completion,
# docs and copyright file (component "runtime"), the core library with its headers and
# a CMake package config (component "dev": find_package(jetgate) gives jetgate::core),
# and LICENSE (component "license", not packaged: see below).

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

# The licence. Debian's copyright file (machine-readable format 1.0) goes with each
# package; the full Apache-2.0 text is LICENSE, installed by `cmake --install` but kept
# out of the .deb packages (component "license" is not in CPACK_COMPONENTS_ALL): on
# Debian the copyright file points to /usr/share/common-licenses/Apache-2.0 instead,
# and lintian reports a second copy of a common licence (extra-license-file).
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/jetgate-dev COMPONENT dev)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR}
        COMPONENT license)

# Bash completion, where bash-completion looks for it on demand. It asks the installed
# jetgate for its subcommands and options (--help) when it completes, so it cannot
# drift from the CLI; scripts/test-packaging.sh checks it against --help.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/jetgate.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME jetgate
        COMPONENT runtime)

# The man pages come from the binary's own --help and --version (help2man), so they
# cannot drift from the options: jetgate.1 (the global options, the list of commands)
# and one page per subcommand, jetgate-probe.1 and so on, from `jetgate probe --help`.
# A cross build runs the binary under the emulator. JETGATE_SUBCOMMANDS must name every
# subcommand: scripts/test-packaging.sh compares it with `jetgate --help`.
set(JETGATE_SUBCOMMANDS probe run check support summary keygen container init history)
set(JETGATE_SUBCOMMAND_NAME_probe "report the platform facts and run the GPU probes")
set(JETGATE_SUBCOMMAND_NAME_run "run one gate and write its evidence")
set(JETGATE_SUBCOMMAND_NAME_check
    "validate a gate policy, its waivers and the evidence behind a support claim")
set(JETGATE_SUBCOMMAND_NAME_support "which platform combinations may claim support")
set(JETGATE_SUBCOMMAND_NAME_summary "Markdown about the gates' evidence")
set(JETGATE_SUBCOMMAND_NAME_keygen "write an Ed25519 key pair for signing evidence")
set(JETGATE_SUBCOMMAND_NAME_container "the container images that run on this Jetson")
set(JETGATE_SUBCOMMAND_NAME_init "write a gate policy and a CI workflow for a project")
set(JETGATE_SUBCOMMAND_NAME_history "a fleet's evidence over time, which node got worse since when, and its HTML report")
find_program(JETGATE_HELP2MAN help2man)
find_program(JETGATE_GZIP gzip)
option(JETGATE_MAN_PAGE "Generate and install the man pages with help2man" ON)
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
  set(man_dir ${CMAKE_CURRENT_BINARY_DIR}/man)
  set(man_pages)
  # jetgate.1, then jetgate-SUB.1 for each subcommand: a wrapper called jetgate-SUB
  # passes --help to `jetgate SUB` and --version to jetgate (subcommands have none),
  # naming itself jetgate-SUB in its first line, where help2man takes the page's name.
  foreach(command IN ITEMS jetgate LISTS JETGATE_SUBCOMMANDS)
    if(command STREQUAL "jetgate")
      set(page jetgate)
      set(name "evidence that GPU compute works on NVIDIA Jetson and CUDA machines")
      set(program ${man_exe})
      set(include ${PROJECT_SOURCE_DIR}/cmake/jetgate.h2m)
      set(wrapper)
    else()
      set(name "${JETGATE_SUBCOMMAND_NAME_${command}}")
      if(name STREQUAL "")
        message(FATAL_ERROR "cmake/Install.cmake: no JETGATE_SUBCOMMAND_NAME_${command} for the "
                            "man page of jetgate ${command}")
      endif()
      file(WRITE ${man_dir}/wrappers.in/jetgate-${command}
           "#!/bin/sh\n"
           "# help2man's view of `jetgate ${command}` (cmake/Install.cmake).\n"
           "# help2man names the page after the first word of --version: jetgate-${command}.\n"
           "if [ \"$1\" = --version ]; then\n"
           "  \"$JETGATE_MAN_EXE\" --version | sed '1s/^jetgate /jetgate-${command} /'\n"
           "  exit\n"
           "fi\n"
           "exec \"$JETGATE_MAN_EXE\" ${command} \"$@\"\n")
      file(COPY ${man_dir}/wrappers.in/jetgate-${command} DESTINATION ${man_dir}/wrappers
           FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                            WORLD_READ WORLD_EXECUTE)
      set(program ${man_dir}/wrappers/jetgate-${command})
      set(include ${PROJECT_SOURCE_DIR}/packaging/jetgate-subcommand.h2m)
      set(page jetgate-${command})
      set(wrapper ${program})
    endif()
    add_custom_command(
      OUTPUT ${man_dir}/${page}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
      COMMAND ${CMAKE_COMMAND} -E env JETGATE_MAN_EXE=${man_exe}
              ${JETGATE_HELP2MAN} --no-info --no-discard-stderr --name ${name}
              --include ${include} --output ${man_dir}/${page}.1 ${program}
      # -n: no name or timestamp in the gzip header, so the .deb is reproducible.
      COMMAND ${JETGATE_GZIP} -9nf ${man_dir}/${page}.1
      DEPENDS jetgate ${include} ${wrapper}
      COMMENT "help2man: ${page}.1"
      VERBATIM)
    list(APPEND man_pages ${man_dir}/${page}.1.gz)
  endforeach()
  add_custom_target(jetgate_man ALL DEPENDS ${man_pages})
  install(FILES ${man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT runtime)
elseif(JETGATE_MAN_PAGE)
  message(STATUS "jetgate: help2man or gzip not found (or no emulator for this cross build); "
                 "no man pages")
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
