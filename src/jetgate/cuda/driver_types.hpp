// SPDX-License-Identifier: Apache-2.0
// The few CUDA driver API types and constants jetgate uses, written out here
// so that nothing includes cuda.h and the build works without the toolkit.
// The values are the driver's stable ABI (cuda.h of CUDA 10.2 .. 13.0 agree
// on every one of them); a change there would break every CUDA binary.
#pragma once

#include <cstdint>

namespace jetgate::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uint64_t;  // unsigned long long on every 64-bit ABI
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
struct CUgraph_st;
struct CUgraphExec_st;
struct CUgraphNode_st;
using CUcontext = CUctx_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUgraph = CUgraph_st*;
using CUgraphExec = CUgraphExec_st*;
using CUgraphNode = CUgraphNode_st*;

// CUresult values that jetgate explains in words (cuda.h: enum cudaError_enum).
enum : CUresult {
  kCudaSuccess = 0,
  kCudaErrorInvalidValue = 1,
  kCudaErrorOutOfMemory = 2,
  kCudaErrorNotInitialized = 3,
  kCudaErrorDeinitialized = 4,
  kCudaErrorStubLibrary = 34,
  kCudaErrorInsufficientDriver = 35,
  kCudaErrorCallRequiresNewerDriver = 36,
  kCudaErrorDeviceUnavailable = 46,
  kCudaErrorNoDevice = 100,
  kCudaErrorInvalidDevice = 101,
  kCudaErrorDeviceNotLicensed = 102,
  kCudaErrorInvalidImage = 200,
  kCudaErrorInvalidContext = 201,
  kCudaErrorNoBinaryForGpu = 209,
  kCudaErrorEccUncorrectable = 214,
  kCudaErrorInvalidPtx = 218,
  kCudaErrorJitCompilerNotFound = 221,
  kCudaErrorUnsupportedPtxVersion = 222,
  kCudaErrorSharedObjectInitFailed = 303,
  kCudaErrorOperatingSystem = 304,
  kCudaErrorNotFound = 500,
  kCudaErrorIllegalAddress = 700,
  kCudaErrorLaunchOutOfResources = 701,
  kCudaErrorLaunchTimeout = 702,
  kCudaErrorLaunchFailed = 719,
  kCudaErrorNotPermitted = 800,
  kCudaErrorNotSupported = 801,
  kCudaErrorSystemNotReady = 802,
  kCudaErrorSystemDriverMismatch = 803,
  kCudaErrorCompatNotSupportedOnDevice = 804,
  kCudaErrorUnknown = 999,
};

// CUdevice_attribute values.
enum CUdeviceAttribute : int {
  kAttrClockRateKhz = 13,
  kAttrMultiprocessorCount = 16,
  kAttrIntegrated = 18,
  kAttrPciBusId = 33,
  kAttrPciDeviceId = 34,
  kAttrMemoryClockRateKhz = 36,
  kAttrGlobalMemoryBusWidthBits = 37,
  kAttrL2CacheSizeBytes = 38,
  kAttrPciDomainId = 50,
  kAttrComputeCapabilityMajor = 75,
  kAttrComputeCapabilityMinor = 76,
  kAttrCooperativeLaunch = 95,
};

// CUctx_flags: how a thread waits for the GPU.
enum : unsigned {
  kCtxSchedAuto = 0x00,
  kCtxSchedSpin = 0x01,
  kCtxSchedYield = 0x02,
  kCtxSchedBlockingSync = 0x04,
};

// The scheduling modes jetgate measures (the sync-path and decode probes), in the
// order they run, with the names their metrics carry ("sync_spin_rtt_median_us"):
// the one list of them (probes/registry.cpp derives the metric names from it).
struct SchedMode {
  const char* name;
  unsigned flags;
};
inline constexpr SchedMode kSchedModes[] = {
    {"spin", kCtxSchedSpin}, {"yield", kCtxSchedYield}, {"blocking_sync", kCtxSchedBlockingSync}};

enum : unsigned { kEventDefault = 0x0, kStreamNonBlocking = 0x1 };

// CUstreamCaptureMode: capture only this thread's work into the graph.
enum : int { kStreamCaptureModeThreadLocal = 1 };

}  // namespace jetgate::cuda
