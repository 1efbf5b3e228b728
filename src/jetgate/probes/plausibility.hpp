// SPDX-License-Identifier: Apache-2.0
// What physics allows: a figure a probe measured but no hardware can produce
// is a broken clock, timer or report, not a fast machine. Every probe result
// passes through check_plausibility() once, in the parent, with the facts of
// the device it ran on; an impossible figure turns the result into FAIL
// "implausible: ..." with the next step. The rules live only here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

// No bandwidth figure may exceed the device's theoretical peak by more than this.
inline constexpr double kMaxFractionOfPeak = 1.05;
// The fastest host link in production (NVLink-C2C, 450 GB/s each way); a
// discrete GPU's host copies cannot beat it, whatever the bus.
inline constexpr double kFastestHostLinkGBps = 450.0;
// No kernel launch plus wait round trip completes faster than this.
inline constexpr double kMinRoundTripUs = 1.0;

struct DeviceLimits {
  std::optional<double> theoretical_gbps;  // from the memory clock and bus width
  std::optional<bool> integrated;          // Jetson: host and device share DRAM
};

// From one entry of /gpu/devices (the device the probes ran on).
DeviceLimits device_limits(const nlohmann::json& device);

// Why the result is impossible, or nullopt. Pure: tested on recorded profiles.
std::optional<std::string> implausibility(const ProbeResult& r, const DeviceLimits& limits);

// Turns an impossible result into FAIL "implausible: ..." with what to check next.
void check_plausibility(ProbeResult& r, const DeviceLimits& limits);

}  // namespace jetgate::probes
