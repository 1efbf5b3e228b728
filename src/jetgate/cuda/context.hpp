// SPDX-License-Identifier: Apache-2.0
// A CUDA context on one device with a chosen scheduling mode, the embedded
// kernels loaded into it, and owners for the memory, streams and events the
// probes use. Lives only inside a probe's child process.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "jetgate/core/result.hpp"
#include "jetgate/cuda/driver.hpp"
#include "jetgate/cuda/kernel_image.hpp"

namespace jetgate::cuda {

// Owns one driver handle and releases it once. Release errors are ignored:
// they come after the measurement and the child exits right after.
template <typename Handle>
class Owned {
 public:
  Owned() = default;
  Owned(Handle h, std::function<void(Handle)> release) : h_(h), release_(std::move(release)) {}
  Owned(Owned&& o) noexcept : h_(o.h_), release_(std::move(o.release_)) { o.release_ = nullptr; }
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = o.h_;
      release_ = std::move(o.release_);
      o.release_ = nullptr;
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }
  Handle get() const { return h_; }
  void reset() {
    if (release_) release_(h_);
    release_ = nullptr;
  }

 private:
  Handle h_{};
  std::function<void(Handle)> release_;
};

// Why the embedded kernels did not load, in words: names the toolkit they were
// built with and the driver's CUDA version when the driver is the older one.
std::string kernel_load_advice(CUresult rc, int driver_version, const std::string& toolkit_version);

// cuInit(0): the first call that talks to the kernel driver.
Status init_driver(const Driver& driver);
// cuDriverGetVersion, e.g. 13000; an error when the call fails.
Result<int> driver_version(const Driver& driver);

class Context {
 public:
  // Creates a context with sched_flags (kCtxSchedSpin, ...) on device ordinal.
  static Result<std::unique_ptr<Context>> create(const Driver& driver, int ordinal,
                                                 unsigned sched_flags);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const Driver& driver() const { return driver_; }
  const DriverApi& api() const { return driver_.api(); }
  CUdevice device() const { return device_; }
  Status check(CUresult rc, const char* call) const;

  // A kernel of the embedded image, loading the image on first use.
  Result<CUfunction> kernel(const char* name);
  Result<int> attribute(CUdeviceAttribute attr) const;

  Result<Owned<CUdeviceptr>> alloc(std::size_t bytes) const;
  Result<Owned<void*>> alloc_pinned(std::size_t bytes) const;
  Result<Owned<CUstream>> stream() const;
  Result<Owned<CUevent>> event() const;

  template <typename... Args>
  Status launch(CUfunction f, unsigned grid, unsigned block, CUstream s, Args... args) const {
    void* params[] = {static_cast<void*>(&args)..., nullptr};
    return check(api().launch_kernel(f, grid, 1, 1, block, 1, 1, 0, s, params, nullptr),
                 "cuLaunchKernel");
  }

 private:
  Context(const Driver& driver, CUdevice device, CUcontext ctx)
      : driver_(driver), device_(device), ctx_(ctx) {}
  const Driver& driver_;
  CUdevice device_;
  CUcontext ctx_;
  CUmodule module_ = nullptr;
};

}  // namespace jetgate::cuda
