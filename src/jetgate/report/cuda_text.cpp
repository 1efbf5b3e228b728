// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/cuda_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {

namespace {

std::string text_or(const nlohmann::json& j, const char* key, const std::string& fallback) {
  if (j.is_object() && j.contains(key) && j[key].is_string())
    return terminal_safe(j[key].get<std::string>());
  return fallback;
}

double number_or(const nlohmann::json& j, const char* key, double fallback) {
  if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return fallback;
}

std::string driver_line(const nlohmann::json& gpu) {
  const auto& drv = gpu.is_object() && gpu.contains("driver") ? gpu["driver"] : nlohmann::json();
  const bool loaded = drv.is_object() && drv.value("loaded", false);
  // The reason is in the notes, printed below.
  if (!loaded) return "CUDA driver: not loaded\n";
  std::string line = fmt::format("CUDA driver: {} (CUDA {}), {} device(s)\n",
                                 text_or(drv, "library", "?"), text_or(drv, "version", "?"),
                                 static_cast<long long>(number_or(gpu, "device_count", 0)));
  if (drv.contains("error") && drv["error"].is_string())
    line += fmt::format("  error: {}\n", terminal_safe(drv["error"].get<std::string>()));
  return line;
}

std::string device_line(const nlohmann::json& d) {
  if (!d.is_object()) return "  GPU ?: unreadable entry in /gpu/devices\n";
  std::string line = fmt::format("  GPU {}: {}, compute {}, {} SMs, {}",
                                 static_cast<long long>(number_or(d, "index", 0)),
                                 text_or(d, "name", "?"), text_or(d, "compute_capability", "?"),
                                 static_cast<long long>(number_or(d, "sm_count", 0)),
                                 d.value("integrated", false) ? "integrated (Tegra)" : "discrete");
  const double total = number_or(d, "total_memory_bytes", -1);
  const double free_bytes = number_or(d, "free_memory_bytes", -1);
  if (total >= 0)
    line += fmt::format(", memory {} ({} free)", format_bytes(total),
                        free_bytes >= 0 ? format_bytes(free_bytes) : "?");
  const double peak = number_or(d, "theoretical_bandwidth_gbps", -1);
  if (peak > 0) line += fmt::format(", peak {:.1f} GB/s", peak);
  if (d.contains("error") && d["error"].is_string())
    line += fmt::format(" (error: {})", terminal_safe(d["error"].get<std::string>()));
  return line + "\n";
}

// The handful of values worth a column; the rest is in the JSON.
std::string key_values(const probes::ProbeResult& r) {
  static const std::vector<std::string> preferred = {"d2d_gbps",
                                                     "d2d_fraction_of_peak",
                                                     "h2d_gbps",
                                                     "d2h_gbps",
                                                     "tested_bytes",
                                                     "mismatched_words",
                                                     "wrong_elements",
                                                     "sync_spin_rtt_median_us",
                                                     "sync_blocking_sync_rtt_median_us",
                                                     "sync_blocking_sync_cpu_fraction",
                                                     "first_launch_us",
                                                     "read_gbps",
                                                     "decode_tok_s",
                                                     "decode_fraction_of_bound",
                                                     "decode_latency_p99_us"};
  std::string out;
  for (const auto& key : preferred) {
    auto it = r.values.find(key);
    if (it == r.values.end()) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ", ", key, format_measurement(it->second));
  }
  return out;
}

}  // namespace

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes) || bytes < 0) return "?";
  if (bytes >= 1e9) return fmt::format("{:.2f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  if (bytes >= 1e3) return fmt::format("{:.1f} kB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_measurement(const probes::Measurement& m) {
  if (!std::isfinite(m.value)) return "n/a";
  if (m.unit == "bytes") return format_bytes(m.value);
  if (m.unit == "fraction") return fmt::format("{:.1f}%", m.value * 100);
  if (m.unit == "count") return fmt::format("{:.0f}", m.value);
  if (m.unit == "GB/s") return fmt::format("{:.1f} GB/s", m.value);
  if (m.unit == "tok/s") return fmt::format("{:.0f} tok/s", m.value);
  return fmt::format("{:.1f} {}", m.value, m.unit);
}

std::string render_cuda_text(const probes::CudaSection& section) {
  std::string out = driver_line(section.gpu);
  if (section.gpu.is_object() && section.gpu.contains("devices") &&
      section.gpu["devices"].is_array())
    for (const auto& d : section.gpu["devices"]) out += device_line(d);
  for (const auto& note : section.notes) out += fmt::format("  note: {}\n", terminal_safe(note));
  if (section.probes.empty()) return out;
  out += fmt::format("\n{:<10} {:<8} {:>9}  {}\n", "probe", "status", "time", "values");
  for (const auto& r : section.probes) {
    out += fmt::format("{:<10} {:<8} {:>7.0f}ms  {}\n", r.id, probes::to_string(r.status),
                       r.duration_ms, key_values(r));
    if (!r.reason.empty())
      out += fmt::format("{:<10} {:<8} {:>9}  {}\n", "", "", "", terminal_safe(r.reason));
  }
  return out;
}

}  // namespace jetgate::report
