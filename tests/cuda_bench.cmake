# SPDX-License-Identifier: Apache-2.0
# bench/cuda_bench: collect_cuda with every probe, JSON out; bench/compare_h200.sh
# runs it on the GPU machine. Built with the tests, never run by them.
if(NOT JETGATE_BUILD_BENCH)
  return()
endif()
add_executable(jetgate_cuda_bench ${PROJECT_SOURCE_DIR}/bench/cuda_bench.cpp)
target_compile_options(jetgate_cuda_bench PRIVATE ${JETGATE_WARNINGS})
target_link_libraries(jetgate_cuda_bench PRIVATE jetgate_core)
target_link_options(jetgate_cuda_bench PRIVATE -static-libstdc++ -static-libgcc)
