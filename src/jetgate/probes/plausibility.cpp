// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/plausibility.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

namespace jetgate::probes {
namespace {

bool is_time_unit(const std::string& unit) {
  return unit == "us" || unit == "ms" || unit == "s" || unit == "ns";
}

// Device-memory bandwidth figures: bounded by the DRAM's theoretical peak.
bool is_device_bandwidth(const std::string& metric) {
  return metric.rfind("d2d", 0) == 0 || metric.rfind("read", 0) == 0 ||
         metric.rfind("decode_achieved", 0) == 0;
}

bool is_host_link(const std::string& metric) {
  return metric.rfind("h2d", 0) == 0 || metric.rfind("d2h", 0) == 0;
}

std::optional<std::string> time_problem(const std::string& metric, const Measurement& m) {
  if (!is_time_unit(m.unit)) return std::nullopt;
  if (!(m.value > 0))
    return fmt::format("{} is {} {}: no work takes zero or negative time, so the timer is broken",
                       metric, m.value, m.unit);
  if (m.unit == "us" && metric.find("rtt") != std::string::npos && m.value < kMinRoundTripUs)
    return fmt::format(
        "{} is {:.3f} us, below the {:.0f} us no launch-and-wait round trip beats: the timer "
        "or the driver's completion report is broken",
        metric, m.value, kMinRoundTripUs);
  return std::nullopt;
}

std::optional<std::string> bandwidth_problem(const std::string& metric, const Measurement& m,
                                             const DeviceLimits& limits) {
  if (m.unit != "GB/s") return std::nullopt;
  if (!(m.value >= 0))
    return fmt::format("{} is {} GB/s: a rate cannot be negative", metric, m.value);
  if (!limits.theoretical_gbps || *limits.theoretical_gbps <= 0) return std::nullopt;
  const double peak = *limits.theoretical_gbps;
  if (is_device_bandwidth(metric) && m.value > kMaxFractionOfPeak * peak)
    return fmt::format(
        "{} {:.0f} GB/s is {:.0f}% of the device's theoretical {:.0f} GB/s: memory cannot move "
        "more than its bus carries, so the memory clock or bus width the driver reports, or the "
        "timer, is wrong",
        metric, m.value, 100 * m.value / peak, peak);
  if (is_host_link(metric)) {
    // Integrated GPUs copy within the one DRAM; discrete ones across a link no faster than
    // NVLink-C2C.
    const bool integrated = limits.integrated.value_or(false);
    const double bound = integrated ? peak : std::min(peak, kFastestHostLinkGBps);
    if (m.value > kMaxFractionOfPeak * bound)
      return fmt::format(
          "{} {:.0f} GB/s is faster than the host link allows ({:.0f} GB/s{}): the timer is wrong "
          "or "
          "the copy did not happen",
          metric, m.value, bound, integrated ? ", the shared DRAM's peak" : "");
  }
  return std::nullopt;
}

}  // namespace

DeviceLimits device_limits(const nlohmann::json& device) {
  DeviceLimits l;
  if (!device.is_object()) return l;
  if (auto it = device.find("theoretical_bandwidth_gbps"); it != device.end() && it->is_number())
    l.theoretical_gbps = it->get<double>();
  if (auto it = device.find("integrated"); it != device.end() && it->is_boolean())
    l.integrated = it->get<bool>();
  return l;
}

std::optional<std::string> implausibility(const ProbeResult& r, const DeviceLimits& limits) {
  std::vector<std::string> problems;
  for (const auto& [metric, m] : r.values) {
    if (!std::isfinite(m.value)) {
      problems.push_back(fmt::format("{} is not a finite number", metric));
      continue;
    }
    if (auto p = time_problem(metric, m)) problems.push_back(*p);
    if (auto p = bandwidth_problem(metric, m, limits)) problems.push_back(*p);
  }
  if (problems.empty()) return std::nullopt;
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void check_plausibility(ProbeResult& r, const DeviceLimits& limits) {
  // Only a result that claims to have measured can be implausible.
  if (r.status != ProbeStatus::pass && r.status != ProbeStatus::warn) return;
  auto why = implausibility(r, limits);
  if (!why) return;
  r.details["measured_reason"] = r.reason;
  r.status = ProbeStatus::fail;
  r.reason = "implausible: " + *why;
  r.next =
      "compare with `nvidia-smi -q -d CLOCK,MEMORY` (or `tegrastats` on Jetson), check that no "
      "other process changes clocks during the run, and report the figures with `jetgate probe "
      "--cuda --json`";
}

}  // namespace jetgate::probes
