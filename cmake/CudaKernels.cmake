# GPU kernels: compiled by nvcc into one fatbin (machine code for every Jetson
# and datacenter architecture this toolkit supports, plus PTX of the oldest for
# forward compatibility) and embedded in the core library. jetgate loads it
# with cuModuleLoadData through the dlopen'ed driver, so the binary never links
# libcudart or libcuda and still runs on machines without either.
# Without nvcc the build succeeds and kernel probes report NOT_RUN.

set(JETGATE_WANTED_ARCHS 53 62 72 75 80 86 87 88 89 90 100 103 110 120 121
    CACHE STRING "GPU architectures to build kernels for, where nvcc supports them")

set(JETGATE_HAVE_KERNELS OFF)
if(JETGATE_WITH_CUDA)
  find_program(JETGATE_NVCC nvcc HINTS ENV CUDA_HOME PATHS /usr/local/cuda/bin
               PATH_SUFFIXES bin)
endif()
if(JETGATE_WITH_CUDA AND JETGATE_NVCC)
  execute_process(COMMAND ${JETGATE_NVCC} --version OUTPUT_VARIABLE nvcc_out
                  RESULT_VARIABLE nvcc_rc)
  execute_process(COMMAND ${JETGATE_NVCC} --list-gpu-code OUTPUT_VARIABLE codes_out
                  RESULT_VARIABLE codes_rc)
  string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _ "${nvcc_out}")
  set(JETGATE_CUDA_TOOLKIT_VERSION "${CMAKE_MATCH_1}")
  if(nvcc_rc EQUAL 0 AND codes_rc EQUAL 0 AND JETGATE_CUDA_TOOLKIT_VERSION)
    set(gencode "")
    set(lowest "")
    foreach(a IN LISTS JETGATE_WANTED_ARCHS)
      string(FIND "${codes_out}" "sm_${a}\n" pos)
      if(pos GREATER_EQUAL 0)
        list(APPEND gencode "-gencode=arch=compute_${a},code=sm_${a}")
        list(APPEND JETGATE_KERNEL_ARCHS ${a})
        if(lowest STREQUAL "")
          set(lowest ${a})
        endif()
      endif()
    endforeach()
    if(NOT lowest STREQUAL "")
      list(APPEND gencode "-gencode=arch=compute_${lowest},code=compute_${lowest}")
      set(JETGATE_HAVE_KERNELS ON)
    endif()
  endif()
endif()

function(jetgate_attach_kernels target)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated/jetgate)
  file(MAKE_DIRECTORY ${gen_dir})
  set(out_cpp ${gen_dir}/kernel_image.cpp)
  if(JETGATE_HAVE_KERNELS)
    file(GLOB kernel_sources CONFIGURE_DEPENDS
         ${CMAKE_CURRENT_SOURCE_DIR}/src/jetgate/cuda/kernels/*.cu)
    set(fatbin ${gen_dir}/jetgate_kernels.fatbin)
    string(REPLACE ";" "," arch_csv "${JETGATE_KERNEL_ARCHS}")
    add_custom_command(
      OUTPUT ${fatbin}
      COMMAND ${JETGATE_NVCC} -fatbin -O3 -std=c++17 ${gencode} -o ${fatbin} ${kernel_sources}
      DEPENDS ${kernel_sources}
      COMMENT "nvcc: building GPU kernels for sm_{${arch_csv}}"
      VERBATIM)
    add_custom_command(
      OUTPUT ${out_cpp}
      COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp} -DFATBIN=${fatbin}
              -DTOOLKIT=${JETGATE_CUDA_TOOLKIT_VERSION} -DARCHS=${arch_csv}
              -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KernelImageScript.cmake
      DEPENDS ${fatbin} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KernelImageScript.cmake
      VERBATIM)
    message(STATUS "jetgate: GPU kernels for sm_{${arch_csv}} + PTX, CUDA ${JETGATE_CUDA_TOOLKIT_VERSION}")
  else()
    add_custom_command(
      OUTPUT ${out_cpp}
      COMMAND ${CMAKE_COMMAND} -DOUT=${out_cpp}
              -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KernelImageScript.cmake
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cmake/KernelImageScript.cmake
      VERBATIM)
    message(STATUS "jetgate: nvcc not found or disabled; kernel probes will report NOT_RUN")
  endif()
  target_sources(${target} PRIVATE ${out_cpp})
endfunction()
