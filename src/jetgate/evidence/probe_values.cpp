// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/probe_values.hpp"

#include <array>
#include <cmath>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/probes/sync_classify.hpp"

namespace jetgate::evidence {
namespace {

constexpr std::array<BaseUnit, 8> kUnits{{
    {"GB/s", "bytes_per_second", 1e9},
    {"us", "seconds", 1e-6},
    {"ms", "seconds", 1e-3},
    {"bytes", "bytes", 1},
    {"fraction", "ratio", 1},
    {"percent", "ratio", 0.01},
    {"tok/s", "tokens_per_second", 1},
    {"count", "items", 1},
}};

// The probe's spelling (probes::to_string, "busy-polling") and the label form
// ("busy_polling") are one wait.
std::string normalised_wait(const std::string& wait) {
  for (auto k : {probes::WaitKind::interrupt_driven, probes::WaitKind::busy_polling,
                 probes::WaitKind::unclear}) {
    std::string written = probes::to_string(k), label = written;
    for (char& c : label)
      if (c == '-') c = '_';
    if (wait == written || wait == label) return label;
  }
  return wait;
}

}  // namespace

const BaseUnit* base_unit_of(std::string_view unit) {
  for (const auto& u : kUnits)
    if (u.unit == unit) return &u;
  return nullptr;
}

std::vector<ProbeReading> probe_readings(const nlohmann::json& doc) {
  std::vector<ProbeReading> out;
  const auto* probes = keys::find(doc, keys::kProbes);
  if (!probes || !probes->is_object()) return out;
  for (const auto& [id, p] : probes->items()) {
    if (!p.is_object()) continue;
    ProbeReading r;
    r.id = id;
    if (p.contains("status") && p["status"].is_string()) r.status = p["status"].get<std::string>();
    if (p.contains("duration_ms") && p["duration_ms"].is_number())
      r.duration_seconds = p["duration_ms"].get<double>() / 1e3;
    if (p.contains("values") && p["values"].is_object())
      for (const auto& [metric, m] : p["values"].items()) {
        if (!m.is_object() || !m.contains("value") || !m["value"].is_number() ||
            !m.contains("unit") || !m["unit"].is_string())
          continue;
        const auto* u = base_unit_of(m["unit"].get<std::string>());
        if (!u) continue;
        const double v = m["value"].get<double>() * u->factor;
        if (!std::isfinite(v)) continue;
        r.values.push_back({metric, v, std::string(u->base)});
      }
    if (p.contains("details") && p["details"].is_object() && p["details"].contains("modes") &&
        p["details"]["modes"].is_array())
      for (const auto& m : p["details"]["modes"]) {
        if (!m.is_object() || !m.contains("mode") || !m["mode"].is_string() ||
            !m.contains("wait") || !m["wait"].is_string())
          continue;
        r.waits.push_back(
            {m["mode"].get<std::string>(), normalised_wait(m["wait"].get<std::string>())});
      }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace jetgate::evidence
