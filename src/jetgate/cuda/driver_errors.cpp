// SPDX-License-Identifier: Apache-2.0
// jetgate's catalogue of CUDA driver errors: a name for each CUresult it may
// meet (older drivers lack cuGetErrorName for newer codes) and, where one
// exists, the next step a user can take.
#include <fmt/format.h>

#include <array>

#include "jetgate/cuda/driver.hpp"

namespace jetgate::cuda {

namespace {

struct ResultInfo {
  CUresult code;
  const char* name;
  const char* hint;
};

constexpr std::array kResults = {
    ResultInfo{kCudaSuccess, "CUDA_SUCCESS", ""},
    ResultInfo{kCudaErrorInvalidValue, "CUDA_ERROR_INVALID_VALUE", ""},
    ResultInfo{kCudaErrorOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY",
               "free GPU memory (stop other GPU processes) or lower --memory-fraction"},
    ResultInfo{kCudaErrorNotInitialized, "CUDA_ERROR_NOT_INITIALIZED", ""},
    ResultInfo{kCudaErrorDeinitialized, "CUDA_ERROR_DEINITIALIZED", ""},
    ResultInfo{kCudaErrorStubLibrary, "CUDA_ERROR_STUB_LIBRARY",
               "the libcuda.so found is the toolkit's link stub, not the driver: remove "
               "cuda/lib64/stubs from LD_LIBRARY_PATH"},
    ResultInfo{kCudaErrorInsufficientDriver, "CUDA_ERROR_INSUFFICIENT_DRIVER",
               "upgrade the NVIDIA driver (JetPack on Jetson)"},
    ResultInfo{kCudaErrorCallRequiresNewerDriver, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
               "upgrade the NVIDIA driver (JetPack on Jetson)"},
    ResultInfo{kCudaErrorDeviceUnavailable, "CUDA_ERROR_DEVICE_UNAVAILABLE",
               "another process holds the GPU in exclusive mode: stop it or change the compute "
               "mode with nvidia-smi -c"},
    ResultInfo{kCudaErrorNoDevice, "CUDA_ERROR_NO_DEVICE",
               "check that the GPU device nodes exist and are readable (/dev/nvidia* on a PC, "
               "/dev/nvgpu, /dev/nvhost-* and /dev/nvmap on Jetson; in a container pass them "
               "with --runtime nvidia or CDI) and that CUDA_VISIBLE_DEVICES does not hide them"},
    ResultInfo{kCudaErrorInvalidDevice, "CUDA_ERROR_INVALID_DEVICE", ""},
    ResultInfo{kCudaErrorDeviceNotLicensed, "CUDA_ERROR_DEVICE_NOT_LICENSED",
               "the vGPU has no license: check the licensing service"},
    ResultInfo{kCudaErrorInvalidImage, "CUDA_ERROR_INVALID_IMAGE",
               "the embedded kernels are damaged: rebuild jetgate"},
    ResultInfo{kCudaErrorInvalidContext, "CUDA_ERROR_INVALID_CONTEXT", ""},
    ResultInfo{kCudaErrorNoBinaryForGpu, "CUDA_ERROR_NO_BINARY_FOR_GPU",
               "rebuild jetgate with a CUDA toolkit that supports this GPU and matches the driver"},
    ResultInfo{kCudaErrorEccUncorrectable, "CUDA_ERROR_ECC_UNCORRECTABLE",
               "the GPU memory reported an uncorrectable ECC error: check nvidia-smi -q -d ECC, "
               "reset the GPU or have it serviced"},
    ResultInfo{kCudaErrorInvalidPtx, "CUDA_ERROR_INVALID_PTX",
               "the driver cannot compile the embedded PTX: rebuild jetgate with the CUDA toolkit "
               "that matches the driver"},
    ResultInfo{kCudaErrorJitCompilerNotFound, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
               "the driver's PTX compiler (libnvidia-ptxjitcompiler) is missing: reinstall the "
               "driver"},
    ResultInfo{kCudaErrorUnsupportedPtxVersion, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
               "the driver is older than the toolkit jetgate was built with: upgrade the driver "
               "(JetPack), or rebuild jetgate with the toolkit that matches the driver"},
    ResultInfo{kCudaErrorSharedObjectInitFailed, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", ""},
    ResultInfo{kCudaErrorOperatingSystem, "CUDA_ERROR_OPERATING_SYSTEM",
               "an OS call of the driver failed: check dmesg for nvgpu/nvidia messages"},
    ResultInfo{kCudaErrorNotFound, "CUDA_ERROR_NOT_FOUND",
               "a kernel is missing from the embedded image: rebuild jetgate"},
    ResultInfo{kCudaErrorIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS",
               "a kernel touched memory it must not: report this as a jetgate bug"},
    ResultInfo{kCudaErrorLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", ""},
    ResultInfo{kCudaErrorLaunchTimeout, "CUDA_ERROR_LAUNCH_TIMEOUT",
               "a display watchdog stopped the kernel: run without a desktop on this GPU"},
    ResultInfo{kCudaErrorLaunchFailed, "CUDA_ERROR_LAUNCH_FAILED",
               "the kernel failed on the GPU: check dmesg for Xid / nvgpu errors"},
    ResultInfo{kCudaErrorNotPermitted, "CUDA_ERROR_NOT_PERMITTED", ""},
    ResultInfo{kCudaErrorNotSupported, "CUDA_ERROR_NOT_SUPPORTED", ""},
    ResultInfo{kCudaErrorSystemNotReady, "CUDA_ERROR_SYSTEM_NOT_READY",
               "the system is not ready: start nvidia-fabricmanager (NVSwitch systems) or wait "
               "for the driver to finish loading"},
    ResultInfo{kCudaErrorSystemDriverMismatch, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
               "libcuda and the kernel module are different versions: reboot after a driver "
               "upgrade, or install matching packages"},
    ResultInfo{kCudaErrorCompatNotSupportedOnDevice, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
               "the CUDA forward-compatibility driver does not support this GPU: use the system "
               "driver"},
    ResultInfo{kCudaErrorUnknown, "CUDA_ERROR_UNKNOWN",
               "check dmesg for driver errors; on Jetson check that the GPU device nodes and "
               "firmware are present"},
};

const ResultInfo* find_result(CUresult rc) {
  for (const auto& info : kResults)
    if (info.code == rc) return &info;
  return nullptr;
}

}  // namespace

std::string result_name(CUresult rc) {
  const ResultInfo* info = find_result(rc);
  return info != nullptr ? info->name : fmt::format("CUresult {}", rc);
}

std::string result_hint(CUresult rc) {
  const ResultInfo* info = find_result(rc);
  return info != nullptr ? info->hint : "";
}

}  // namespace jetgate::cuda
