# SPDX-License-Identifier: Apache-2.0
# A fake /dev/nvhost-ctrl (tests/fake_nvhost/fake_nvhost.c), an LD_PRELOAD
# interposer for the nvhost_ctrl probe's tests. The tests find it through
# JETGATE_FAKE_NVHOST and pick its behaviour with FAKE_NVHOST_MODE.
add_library(fake_nvhost SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_nvhost/fake_nvhost.c)
set_target_properties(fake_nvhost PROPERTIES C_STANDARD 11 C_VISIBILITY_PRESET default)
target_compile_options(fake_nvhost PRIVATE -Wall -Wextra -Werror)
target_link_libraries(fake_nvhost PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(jetgate_tests fake_nvhost)
target_compile_definitions(jetgate_tests PRIVATE JETGATE_FAKE_NVHOST="$<TARGET_FILE:fake_nvhost>")
