// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/context.hpp"

#include <fmt/format.h>

namespace jetgate::cuda {

std::string kernel_load_advice(CUresult rc, int driver_version,
                               const std::string& toolkit_version) {
  const int toolkit = parse_cuda_version(toolkit_version);
  const bool driver_older = toolkit > 0 && driver_version > 0 && driver_version < toolkit;
  const bool version_error = rc == kCudaErrorUnsupportedPtxVersion ||
                             rc == kCudaErrorNoBinaryForGpu || rc == kCudaErrorInvalidPtx ||
                             rc == kCudaErrorInvalidImage;
  if (driver_older && version_error)
    return fmt::format(
        "the driver supports CUDA {} but jetgate's kernels were built with CUDA {}: upgrade the "
        "driver (on Jetson: JetPack) to one that supports CUDA {}, or rebuild jetgate with the "
        "CUDA toolkit that matches the driver (for example JetPack 6's CUDA 12.6)",
        format_cuda_version(driver_version), toolkit_version, toolkit_version);
  if (rc == kCudaErrorNoBinaryForGpu)
    return fmt::format(
        "jetgate's kernels (CUDA {}) hold no code this GPU can run: rebuild jetgate with a CUDA "
        "toolkit that supports this GPU's architecture (JETGATE_WANTED_ARCHS)",
        toolkit_version);
  return result_hint(rc);
}

Status init_driver(const Driver& driver) {
  CUresult rc = driver.api().init(0);
  if (rc != kCudaSuccess) return driver.error("cuInit", rc);
  return Ok{};
}

Result<int> driver_version(const Driver& driver) {
  int v = 0;
  CUresult rc = driver.api().driver_get_version(&v);
  if (rc != kCudaSuccess) return driver.error("cuDriverGetVersion", rc);
  return v;
}

Result<std::unique_ptr<Context>> Context::create(const Driver& driver, int ordinal,
                                                 unsigned sched_flags) {
  CUdevice dev = 0;
  CUresult rc = driver.api().device_get(&dev, ordinal);
  if (rc != kCudaSuccess) return driver.error(fmt::format("cuDeviceGet({})", ordinal), rc);
  CUcontext ctx = nullptr;
  rc = driver.api().ctx_create(&ctx, sched_flags, dev);
  if (rc != kCudaSuccess) return driver.error("cuCtxCreate", rc);
  return std::unique_ptr<Context>(new Context(driver, dev, ctx));
}

Context::~Context() {
  if (module_ != nullptr) api().module_unload(module_);
  api().ctx_destroy(ctx_);
}

Status Context::check(CUresult rc, const char* call) const {
  if (rc != kCudaSuccess) return driver_.error(call, rc);
  return Ok{};
}

Result<CUfunction> Context::kernel(const char* name) {
  if (module_ == nullptr) {
    const KernelImage image = kernel_image();
    if (!image.present())
      return make_error("jetgate was built without the CUDA toolkit", "",
                        "rebuild jetgate where nvcc is installed");
    CUresult rc = api().module_load_data(&module_, image.data);
    if (rc != kCudaSuccess) {
      module_ = nullptr;
      int version = 0;
      api().driver_get_version(&version);
      return make_error(
          fmt::format("cuModuleLoadData (jetgate's kernels) failed: {}", driver_.describe(rc)),
          driver_.library(), kernel_load_advice(rc, version, image.toolkit_version));
    }
  }
  CUfunction f = nullptr;
  CUresult rc = api().module_get_function(&f, module_, name);
  if (rc != kCudaSuccess) return driver_.error(fmt::format("cuModuleGetFunction({})", name), rc);
  return f;
}

Result<int> Context::attribute(CUdeviceAttribute attr) const {
  int v = 0;
  CUresult rc = api().device_get_attribute(&v, attr, device_);
  if (rc != kCudaSuccess)
    return driver_.error(fmt::format("cuDeviceGetAttribute({})", static_cast<int>(attr)), rc);
  return v;
}

Result<Owned<CUdeviceptr>> Context::alloc(std::size_t bytes) const {
  CUdeviceptr p = 0;
  CUresult rc = api().mem_alloc(&p, bytes);
  if (rc != kCudaSuccess) return driver_.error(fmt::format("cuMemAlloc({} bytes)", bytes), rc);
  auto free_fn = api().mem_free;
  return Owned<CUdeviceptr>(p, [free_fn](CUdeviceptr q) { free_fn(q); });
}

Result<Owned<void*>> Context::alloc_pinned(std::size_t bytes) const {
  void* p = nullptr;
  CUresult rc = api().mem_alloc_host(&p, bytes);
  if (rc != kCudaSuccess) return driver_.error(fmt::format("cuMemAllocHost({} bytes)", bytes), rc);
  auto free_fn = api().mem_free_host;
  return Owned<void*>(p, [free_fn](void* q) { free_fn(q); });
}

Result<Owned<CUstream>> Context::stream() const {
  CUstream s = nullptr;
  CUresult rc = api().stream_create(&s, kStreamNonBlocking);
  if (rc != kCudaSuccess) return driver_.error("cuStreamCreate", rc);
  auto destroy = api().stream_destroy;
  return Owned<CUstream>(s, [destroy](CUstream q) { destroy(q); });
}

Result<Owned<CUevent>> Context::event() const {
  CUevent e = nullptr;
  CUresult rc = api().event_create(&e, kEventDefault);
  if (rc != kCudaSuccess) return driver_.error("cuEventCreate", rc);
  auto destroy = api().event_destroy;
  return Owned<CUevent>(e, [destroy](CUevent q) { destroy(q); });
}

}  // namespace jetgate::cuda
