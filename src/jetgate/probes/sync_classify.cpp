// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/sync_classify.hpp"

#include <fmt/format.h>

#include <cmath>

namespace jetgate::probes {

const char* to_string(WaitKind k) {
  switch (k) {
    case WaitKind::interrupt_driven:
      return "interrupt-driven";
    case WaitKind::busy_polling:
      return "busy-polling";
    case WaitKind::unclear:
      return "unclear";
  }
  return "unclear";
}

WaitKind classify_wait(double cpu_fraction, const WaitThresholds& t) {
  if (!std::isfinite(cpu_fraction)) return WaitKind::unclear;
  if (cpu_fraction > t.polling_above) return WaitKind::busy_polling;
  if (cpu_fraction < t.interrupt_below) return WaitKind::interrupt_driven;
  return WaitKind::unclear;
}

namespace {

const SyncModeVerdict* find_mode(const std::vector<SyncModeVerdict>& v, const std::string& mode) {
  for (const auto& m : v)
    if (m.mode == mode) return &m;
  return nullptr;
}

std::string percent(double fraction) {
  return fmt::format("{:.1f}%", fraction * 100.0);
}

}  // namespace

SyncAssessment assess_sync_path(const std::vector<SyncModeMeasurement>& modes,
                                const WaitThresholds& t) {
  SyncAssessment a;
  for (const auto& m : modes) {
    if (m.round_trip_us.empty() || !(m.wait_wall_s > 0) || !(m.wait_cpu_s >= 0)) {
      a.status = ProbeStatus::fail;
      a.reason = fmt::format("no usable measurement for scheduling mode {}", m.mode);
      return a;
    }
    SyncModeVerdict v;
    v.mode = m.mode;
    v.round_trip_us = summarize(m.round_trip_us);
    v.cpu_fraction = m.wait_cpu_s / m.wait_wall_s;
    v.wait = classify_wait(v.cpu_fraction, t);
    a.modes.push_back(v);
  }
  const SyncModeVerdict* blocking = find_mode(a.modes, "blocking_sync");
  if (blocking == nullptr) {
    a.status = ProbeStatus::fail;
    a.reason = "blocking_sync mode was not measured";
    return a;
  }
  const std::string measured =
      fmt::format("the blocking-sync wait used {} of a core, round trip {:.1f} us median",
                  percent(blocking->cpu_fraction), blocking->round_trip_us.median);
  switch (blocking->wait) {
    case WaitKind::busy_polling:
      a.status = ProbeStatus::warn;
      a.reason = fmt::format(
          "blocking sync burns CPU: polling fallback ({}; above {} counts as polling). GPU work "
          "is correct but every wait costs a CPU core; compare with a machine where it sleeps",
          measured, percent(t.polling_above));
      break;
    case WaitKind::unclear:
      a.status = ProbeStatus::warn;
      a.reason = fmt::format(
          "blocking sync is neither clearly interrupt-driven nor polling ({}; between {} and "
          "{}): run again on an idle machine",
          measured, percent(t.interrupt_below), percent(t.polling_above));
      break;
    case WaitKind::interrupt_driven:
      a.status = ProbeStatus::pass;
      a.reason = fmt::format("blocking sync is interrupt-driven ({})", measured);
      break;
  }
  return a;
}

void add_sync_values(const SyncAssessment& a, ProbeResult& r) {
  nlohmann::json table = nlohmann::json::array();
  for (const auto& m : a.modes) {
    r.values[fmt::format("sync_{}_rtt_median_us", m.mode)] = {m.round_trip_us.median, "us"};
    r.values[fmt::format("sync_{}_rtt_p99_us", m.mode)] = {m.round_trip_us.p99, "us"};
    r.values[fmt::format("sync_{}_cpu_fraction", m.mode)] = {m.cpu_fraction, "fraction"};
    table.push_back({{"mode", m.mode},
                     {"round_trip_us", to_json(m.round_trip_us)},
                     {"wait_cpu_fraction", m.cpu_fraction},
                     {"wait", to_string(m.wait)}});
  }
  r.details["modes"] = table;
}

nlohmann::json to_json(const SyncModeMeasurement& m) {
  return {{"mode", m.mode},
          {"round_trip_us", m.round_trip_us},
          {"wait_wall_s", m.wait_wall_s},
          {"wait_cpu_s", m.wait_cpu_s}};
}

Result<std::vector<SyncModeMeasurement>> sync_profile_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("modes") || !j["modes"].is_array())
    return make_error("sync profile has no \"modes\" array", "/modes",
                      "record a profile with the sync_path probe (see docs/probes.md)");
  std::vector<SyncModeMeasurement> out;
  for (std::size_t i = 0; i < j["modes"].size(); ++i) {
    const auto& m = j["modes"][i];
    const std::string where = fmt::format("/modes/{}", i);
    if (!m.is_object() || !m.contains("mode") || !m["mode"].is_string())
      return make_error("mode entry has no string \"mode\"", where);
    if (!m.contains("round_trip_us") || !m["round_trip_us"].is_array())
      return make_error("mode entry has no \"round_trip_us\" array", where + "/round_trip_us");
    if (!m.contains("wait_wall_s") || !m["wait_wall_s"].is_number() || !m.contains("wait_cpu_s") ||
        !m["wait_cpu_s"].is_number())
      return make_error("mode entry needs numbers \"wait_wall_s\" and \"wait_cpu_s\"", where);
    SyncModeMeasurement s;
    s.mode = m["mode"].get<std::string>();
    for (const auto& v : m["round_trip_us"]) {
      if (!v.is_number()) return make_error("round trip is not a number", where + "/round_trip_us");
      s.round_trip_us.push_back(v.get<double>());
    }
    s.wait_wall_s = m["wait_wall_s"].get<double>();
    s.wait_cpu_s = m["wait_cpu_s"].get<double>();
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace jetgate::probes
