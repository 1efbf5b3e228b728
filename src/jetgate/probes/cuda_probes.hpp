// SPDX-License-Identifier: Apache-2.0
// The kernel-based CUDA probes. Each runs inside its own child process (see
// cuda_section.cpp) with the driver already loaded and initialised, on
// device 0, and returns its result; none prints.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/cuda/driver.hpp"
#include "jetgate/cuda/kernel_image.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

using CudaProbeFn = ProbeResult (*)(const cuda::Driver&, const CudaOptions&);

struct CudaProbe {
  const char* id;
  CudaProbeFn run;         // null: a probe that does not use the CUDA driver (nvhost_ctrl)
  bool by_default = true;  // runs when no probe is named (--cuda); else only when named
  std::chrono::milliseconds min_timeout{0};  // the child's limit is at least this
};

// In the order they run: cheap correctness first, timing-sensitive last.
const std::vector<CudaProbe>& cuda_probes();

ProbeResult probe_launch(const cuda::Driver& driver, const CudaOptions& options);
ProbeResult probe_memory(const cuda::Driver& driver, const CudaOptions& options);
ProbeResult probe_bandwidth(const cuda::Driver& driver, const CudaOptions& options);
ProbeResult probe_sync_path(const cuda::Driver& driver, const CudaOptions& options);
ProbeResult probe_decode(const cuda::Driver& driver, const CudaOptions& options);

// A FAIL result whose reason is the error's message (what, where, hint).
// SKIP (no usable driver or device) or NOT_RUN (no kernels in this build)
// before any child is started; nullopt when the probe can run.
std::optional<ProbeResult> cuda_probe_precheck(const CudaSection& s, const std::string& id,
                                               const cuda::KernelImage& image);

ProbeResult failed_probe(const std::string& id, const Error& e);

// The device the probes use.
inline constexpr int kProbeDevice = 0;

}  // namespace jetgate::probes
