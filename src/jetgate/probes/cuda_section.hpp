// SPDX-License-Identifier: Apache-2.0
// The CUDA part of the evidence: driver access and device facts (always, on
// the live machine) and, when asked, the kernel probes. Implemented in
// cuda_section.cpp; everything that touches the driver runs in a child
// process with a time limit.
#pragma once

#include <chrono>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/probes/decode_options.hpp"
#include "jetgate/probes/nvhost_ctrl.hpp"
#include "jetgate/probes/probe_result.hpp"
#include "jetgate/probes/progress.hpp"

namespace jetgate::probes {

struct CudaOptions {
  bool run_probes = false;        // launch, memory, bandwidth, sync_path
  std::vector<std::string> only;  // probe ids to run; empty: all
  double memory_fraction = 0.25;  // share of free memory the memory probe touches
  std::size_t memory_max_bytes = std::size_t{16} << 30;  // ... but at most this much
  std::chrono::milliseconds probe_timeout{20000};
  std::vector<std::string> driver_paths;  // empty: the built-in ordered list
  ProbeProgress progress;                 // told as each probe starts and ends
  DecodeOptions decode;                   // the decode probe (runs only when named)
  NvhostCtrlOptions nvhost;               // the nvhost_ctrl probe: the stack facts say of it
};

struct CudaSection {  // NOLINT(bugprone-exception-escape): see .clang-tidy
  // /gpu: {"driver": {"loaded", "library", "error", "version"}, "device_count", "devices": [...]}
  nlohmann::json gpu;
  std::vector<ProbeResult> probes;  // empty unless run_probes
  std::vector<std::string> notes;   // plain-language lines, e.g. "no CUDA driver: <reason>"
};

CudaSection collect_cuda(const CudaOptions& options);

}  // namespace jetgate::probes
