# SPDX-License-Identifier: Apache-2.0
# A fake CUDA driver (tests/fake_cuda/fake_cuda.c) for the loader and probe
# tests, built twice: complete, and without cuLaunchKernel (a driver lacking
# an entry point). The tests find them through JETGATE_FAKE_CUDA[_NO_LAUNCH].
foreach(variant IN ITEMS fake_cuda fake_cuda_no_launch)
  add_library(${variant} SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_cuda/fake_cuda.c)
  set_target_properties(${variant} PROPERTIES C_STANDARD 11 C_VISIBILITY_PRESET default)
  target_compile_options(${variant} PRIVATE -Wall -Wextra -Werror)
  add_dependencies(jetgate_tests ${variant})
endforeach()
target_compile_definitions(fake_cuda_no_launch PRIVATE FAKE_CUDA_OMIT_LAUNCH)
target_compile_definitions(jetgate_tests PRIVATE
  JETGATE_FAKE_CUDA="$<TARGET_FILE:fake_cuda>"
  JETGATE_FAKE_CUDA_NO_LAUNCH="$<TARGET_FILE:fake_cuda_no_launch>")
