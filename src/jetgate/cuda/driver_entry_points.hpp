// SPDX-License-Identifier: Apache-2.0
// Every CUDA driver entry point jetgate calls, listed once:
//   X(member, exported symbol, function type)
// The symbol is the exact name libcuda exports. cuda.h maps many API names to
// versioned symbols (cuMemAlloc -> cuMemAlloc_v2, and in CUDA 13 cuCtxCreate
// -> cuCtxCreate_v4); jetgate uses the oldest versioned symbol with the 64-bit
// ABI so that one binary works from JetPack 4's CUDA 10.2 driver to CUDA 13.
// All of these are exported by libcuda 580 (checked with nm -D). The graph and
// cooperative-launch entry points date from CUDA 9.0-10.1: cuGraphInstantiate
// is the CUDA 10.0 symbol (5 arguments), which drivers keep exporting for
// binaries of that time, where cuda.h now maps the name to
// cuGraphInstantiateWithFlags (CUDA 11.4+, absent from JetPack 4).
#pragma once

#include <cstddef>

#include "jetgate/cuda/driver_types.hpp"

#define JETGATE_CUDA_DRIVER_ENTRY_POINTS(X)                                                       \
  X(init, "cuInit", CUresult(unsigned))                                                           \
  X(driver_get_version, "cuDriverGetVersion", CUresult(int*))                                     \
  X(get_error_name, "cuGetErrorName", CUresult(CUresult, const char**))                           \
  X(get_error_string, "cuGetErrorString", CUresult(CUresult, const char**))                       \
  X(device_get_count, "cuDeviceGetCount", CUresult(int*))                                         \
  X(device_get, "cuDeviceGet", CUresult(CUdevice*, int))                                          \
  X(device_get_name, "cuDeviceGetName", CUresult(char*, int, CUdevice))                           \
  X(device_get_attribute, "cuDeviceGetAttribute", CUresult(int*, int, CUdevice))                  \
  X(device_total_mem, "cuDeviceTotalMem_v2", CUresult(std::size_t*, CUdevice))                    \
  X(ctx_create, "cuCtxCreate_v2", CUresult(CUcontext*, unsigned, CUdevice))                       \
  X(ctx_destroy, "cuCtxDestroy_v2", CUresult(CUcontext))                                          \
  X(ctx_synchronize, "cuCtxSynchronize", CUresult())                                              \
  X(mem_get_info, "cuMemGetInfo_v2", CUresult(std::size_t*, std::size_t*))                        \
  X(mem_alloc, "cuMemAlloc_v2", CUresult(CUdeviceptr*, std::size_t))                              \
  X(mem_free, "cuMemFree_v2", CUresult(CUdeviceptr))                                              \
  X(mem_alloc_host, "cuMemAllocHost_v2", CUresult(void**, std::size_t))                           \
  X(mem_free_host, "cuMemFreeHost", CUresult(void*))                                              \
  X(memset_d32_async, "cuMemsetD32Async", CUresult(CUdeviceptr, unsigned, std::size_t, CUstream)) \
  X(memcpy_htod, "cuMemcpyHtoD_v2", CUresult(CUdeviceptr, const void*, std::size_t))              \
  X(memcpy_dtoh, "cuMemcpyDtoH_v2", CUresult(void*, CUdeviceptr, std::size_t))                    \
  X(memcpy_htod_async, "cuMemcpyHtoDAsync_v2",                                                    \
    CUresult(CUdeviceptr, const void*, std::size_t, CUstream))                                    \
  X(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2",                                                    \
    CUresult(void*, CUdeviceptr, std::size_t, CUstream))                                          \
  X(memcpy_dtod_async, "cuMemcpyDtoDAsync_v2",                                                    \
    CUresult(CUdeviceptr, CUdeviceptr, std::size_t, CUstream))                                    \
  X(module_load_data, "cuModuleLoadData", CUresult(CUmodule*, const void*))                       \
  X(module_unload, "cuModuleUnload", CUresult(CUmodule))                                          \
  X(module_get_function, "cuModuleGetFunction", CUresult(CUfunction*, CUmodule, const char*))     \
  X(launch_kernel, "cuLaunchKernel",                                                              \
    CUresult(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
             CUstream, void**, void**))                                                           \
  X(stream_create, "cuStreamCreate", CUresult(CUstream*, unsigned))                               \
  X(stream_destroy, "cuStreamDestroy_v2", CUresult(CUstream))                                     \
  X(stream_synchronize, "cuStreamSynchronize", CUresult(CUstream))                                \
  X(event_create, "cuEventCreate", CUresult(CUevent*, unsigned))                                  \
  X(event_destroy, "cuEventDestroy_v2", CUresult(CUevent))                                        \
  X(event_record, "cuEventRecord", CUresult(CUevent, CUstream))                                   \
  X(event_synchronize, "cuEventSynchronize", CUresult(CUevent))                                   \
  X(event_elapsed_time, "cuEventElapsedTime", CUresult(float*, CUevent, CUevent))                 \
  X(launch_cooperative_kernel, "cuLaunchCooperativeKernel",                                       \
    CUresult(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
             CUstream, void**))                                                                   \
  X(occupancy_max_active_blocks, "cuOccupancyMaxActiveBlocksPerMultiprocessor",                   \
    CUresult(int*, CUfunction, int, std::size_t))                                                 \
  X(stream_begin_capture, "cuStreamBeginCapture_v2", CUresult(CUstream, int))                     \
  X(stream_end_capture, "cuStreamEndCapture", CUresult(CUstream, CUgraph*))                       \
  X(graph_instantiate, "cuGraphInstantiate",                                                      \
    CUresult(CUgraphExec*, CUgraph, CUgraphNode*, char*, std::size_t))                            \
  X(graph_launch, "cuGraphLaunch", CUresult(CUgraphExec, CUstream))                               \
  X(graph_exec_destroy, "cuGraphExecDestroy", CUresult(CUgraphExec))                              \
  X(graph_destroy, "cuGraphDestroy", CUresult(CUgraph))
