# SPDX-License-Identifier: Apache-2.0
# Embeds data files (default policy, Python probe script, JSON schema) into the
# core library as byte arrays, so the installed binary needs no data directory.
function(jetgate_embed_files target)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/jetgate)
  file(MAKE_DIRECTORY ${gen_dir})
  file(GLOB embed_inputs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/data/*)
  set(out_cpp ${gen_dir}/embedded_data.cpp)
  add_custom_command(
    OUTPUT ${out_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DINPUTS="${embed_inputs}"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    DEPENDS ${embed_inputs} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/EmbedScript.cmake
    COMMENT "Embedding data files")
  target_sources(${target} PRIVATE ${out_cpp})
endfunction()
