// SPDX-License-Identifier: Apache-2.0
// Facts about the driver and each device, as the /gpu part of the evidence.
// Runs in a child process (it calls cuInit and creates a context per device).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "jetgate/cuda/driver.hpp"

namespace jetgate::cuda {

// Peak DRAM bandwidth from the clock the driver reports and the bus width:
// 2 transfers per clock (DDR) * clock * bus width / 8 bits, in GB/s (1e9).
// 0 when either is unknown (Jetson drivers may report 0).
double theoretical_bandwidth_gbps(long long memory_clock_khz, long long bus_width_bits);

// {"driver": {"loaded": true, "library", "version", "error"}, "device_count",
//  "devices": [{"index", "name", "compute_capability", ...}]}. Errors are
// recorded in "error" fields, never thrown.
nlohmann::json collect_gpu_facts(const Driver& driver);

// The /gpu document when the driver could not be loaded.
nlohmann::json gpu_facts_without_driver(const std::string& reason);

}  // namespace jetgate::cuda
