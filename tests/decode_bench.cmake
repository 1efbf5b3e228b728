# SPDX-License-Identifier: Apache-2.0
# bench/decode_bench: jetgate's decode kernels in variants side by side;
# bench/decode_h200.sh runs it on the GPU machine. Built with the tests, never
# run by them.
add_executable(jetgate_decode_bench ${PROJECT_SOURCE_DIR}/bench/decode_bench.cpp)
target_compile_options(jetgate_decode_bench PRIVATE ${JETGATE_WARNINGS})
target_link_libraries(jetgate_decode_bench PRIVATE jetgate_core)
target_link_options(jetgate_decode_bench PRIVATE -static-libstdc++ -static-libgcc)
