// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/probe_values.hpp"

#include <cmath>

#include "jetgate/probes/sync_classify.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::evidence {
namespace {

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

const units::Unit* base_unit_of(std::string_view unit) {
  return units::unit_of(unit);
}

std::vector<ProbeReading> probe_readings(const record::Record& r) {
  std::vector<ProbeReading> out;
  for (const auto& [id, p] : r.probes) {
    ProbeReading reading;
    reading.id = id;
    reading.status = p.status.value_or("");
    if (p.duration_ms) reading.duration_seconds = p.duration_ms->value / 1e3;
    for (const auto& [metric, m] : p.values) {
      const auto* u = base_unit_of(m.unit);
      if (!u) continue;
      const double v = m.value.value * u->factor;
      if (!std::isfinite(v)) continue;
      reading.values.push_back({metric, v, std::string(units::info(u->base).name)});
    }
    for (const auto& w : p.waits)
      if (w.mode && w.wait) reading.waits.push_back({*w.mode, normalised_wait(*w.wait)});
    out.push_back(std::move(reading));
  }
  return out;
}

std::vector<ProbeReading> probe_readings(const nlohmann::json& doc) {
  return probe_readings(record::read(doc, record::Keep::known));
}

}  // namespace jetgate::evidence
