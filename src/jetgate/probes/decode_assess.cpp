// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/decode_assess.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "jetgate/probes/stats.hpp"
#include "jetgate/probes/sync_classify.hpp"

namespace jetgate::probes {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string mode_words(const std::string& mode) {
  return mode == "blocking_sync" ? "blocking sync" : mode;
}

double host_cpu_us_per_token(const DecodeModeRun& m) {
  return m.latency_us.empty() ? kNaN : m.cpu_s * 1e6 / static_cast<double>(m.latency_us.size());
}

void add_mode_values(const DecodeModeRun& m, ProbeResult& r) {
  const Summary lat = summarize(m.latency_us);
  r.values[fmt::format("decode_{}_tok_s", m.mode)] = {decode_tok_s(m), "tok/s"};
  r.values[fmt::format("decode_{}_latency_p99_us", m.mode)] = {lat.p99, "us"};
  r.values[fmt::format("decode_{}_cpu_fraction", m.mode)] = {decode_cpu_fraction(m), "fraction"};
  r.values[fmt::format("decode_{}_host_cpu_us_per_token", m.mode)] = {host_cpu_us_per_token(m),
                                                                      "us"};
}

nlohmann::json mode_details(const DecodeModeRun& m) {
  return {{"mode", m.mode},
          {"tok_s", decode_tok_s(m)},
          {"latency_us", to_json(summarize(m.latency_us))},
          {"cpu_fraction", decode_cpu_fraction(m)},
          {"wait", to_string(classify_wait(decode_cpu_fraction(m)))},
          {"host_cpu_us_per_token", host_cpu_us_per_token(m)},
          {"burst_tok_s", m.burst_tok_s},
          {"sentence", describe_decode_wait(m)}};
}

}  // namespace

double decode_tok_s(const DecodeModeRun& m) {
  const double med = median(m.latency_us);
  return med > 0 ? 1e6 / med : kNaN;
}

double decode_cpu_fraction(const DecodeModeRun& m) {
  return m.wall_s > 0 ? m.cpu_s / m.wall_s : kNaN;
}

std::string describe_decode_wait(const DecodeModeRun& m) {
  const double f = decode_cpu_fraction(m);
  const std::string who = mode_words(m.mode);
  switch (classify_wait(f)) {
    case WaitKind::busy_polling:
      if (m.mode == "blocking_sync")
        return fmt::format(
            "blocking sync burns {:.2f} of a core per token: the driver falls back to polling "
            "(see the sync_path probe)",
            f);
      return fmt::format("{} polls, as it is meant to: {:.2f} of a core per token", who, f);
    case WaitKind::interrupt_driven:
      return fmt::format("{} waits interrupt-driven: {:.2f} of a core per token", who, f);
    case WaitKind::unclear:
      break;
  }
  return fmt::format(
      "{} uses {:.2f} of a core per token: neither clearly polling nor interrupt-driven (launch "
      "work counts too when tokens are short)",
      who, f);
}

void assess_decode(const DecodeRun& run, ProbeResult& r) {
  const DecodeModeRun* best = nullptr;
  for (const auto& m : run.modes) {
    if (m.latency_us.empty()) continue;
    add_mode_values(m, r);
    if (best == nullptr || decode_tok_s(m) > decode_tok_s(*best)) best = &m;
  }
  if (best == nullptr) {
    r.status = ProbeStatus::fail;
    r.reason = "no scheduling mode produced a timed token";
    return;
  }
  const double bytes = run.weight_bytes_per_token + run.kv_bytes_per_token;
  const double tok_s = decode_tok_s(*best);
  const double achieved_gbps = bytes * tok_s / 1e9;
  const Summary lat = summarize(best->latency_us);
  r.values["decode_tok_s"] = {tok_s, "tok/s"};
  r.values["decode_bytes_per_token"] = {bytes, "bytes"};
  r.values["decode_weight_bytes_per_token"] = {run.weight_bytes_per_token, "bytes"};
  r.values["decode_kv_bytes_per_token"] = {run.kv_bytes_per_token, "bytes"};
  r.values["decode_achieved_gbps"] = {achieved_gbps, "GB/s"};
  r.values["decode_latency_p50_us"] = {lat.median, "us"};
  r.values["decode_latency_p90_us"] = {lat.p90, "us"};
  r.values["decode_latency_p99_us"] = {lat.p99, "us"};
  r.values["decode_host_cpu_us_per_token"] = {host_cpu_us_per_token(*best), "us"};
  if (best->burst_tok_s > 0) r.values["decode_burst_tok_s"] = {best->burst_tok_s, "tok/s"};

  std::string summary =
      fmt::format("{} {} ({} launch): {:.0f} tok/s ({}), {:.2f} GB per token", run.model, run.dtype,
                  run.launch, tok_s, mode_words(best->mode), bytes / 1e9);
  double fraction = kNaN;
  if (run.read_gbps > 0) {
    fraction = achieved_gbps / run.read_gbps;
    const double bound = run.read_gbps * 1e9 / bytes;
    r.values["decode_read_gbps"] = {run.read_gbps, "GB/s"};
    r.values["decode_bound_tok_s"] = {bound, "tok/s"};
    r.values["decode_fraction_of_bound"] = {fraction, "fraction"};
    summary += fmt::format(
        ", {:.0f}% of the {:.0f} tok/s the measured read bandwidth allows ({:.0f} GB/s)",
        fraction * 100, bound, run.read_gbps);
  }
  if (run.theoretical_gbps > 0) {
    const double expected = run.theoretical_gbps * 1e9 / bytes;
    r.values["decode_expected_tok_s"] = {expected, "tok/s"};
    r.values["decode_fraction_of_theoretical"] = {tok_s / expected, "fraction"};
    summary += fmt::format("; theoretical {:.0f} tok/s", expected);
  }
  std::string waits;
  for (const auto& m : run.modes) {
    if (m.latency_us.empty()) continue;
    waits += fmt::format("; {} {:.0f} tok/s, {}", mode_words(m.mode), decode_tok_s(m),
                         describe_decode_wait(m));
  }
  nlohmann::json modes = nlohmann::json::array();
  for (const auto& m : run.modes) modes.push_back(mode_details(m));
  r.details["model"] = run.model;
  r.details["dtype"] = run.dtype;
  r.details["launch"] = run.launch;
  r.details["best_mode"] = best->mode;
  r.details["modes"] = modes;
  r.details["bound"] = "read-only bandwidth measured in the same run over the model's weights";
  if (std::isfinite(fraction) && fraction < kDecodeWarnFractionOfBound) {
    r.status = ProbeStatus::warn;
    r.reason = summary +
               fmt::format(
                   ", below {:.0f}%: check clocks and power mode (Jetson: nvpmodel -q, "
                   "jetson_clocks) and other GPU or CPU load",
                   kDecodeWarnFractionOfBound * 100) +
               waits;
    return;
  }
  r.status = ProbeStatus::pass;
  r.reason = summary + waits;
}

}  // namespace jetgate::probes
