// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/power_notes.hpp"

#include "jetgate/facts/power.hpp"
#include "jetgate/probes/registry.hpp"

namespace jetgate::evidence {

namespace {
bool is_speed_probe(const std::string& id) {
  const probes::ProbeSpec* spec = probes::find_probe_spec(id);
  return spec != nullptr && spec->measures_speed;
}
}  // namespace

void cite_power_facts(probes::CudaSection& section, const nlohmann::json& platform) {
  auto advice = facts::power_advice(platform);
  if (!advice) return;
  for (auto& r : section.probes) {
    if (!is_speed_probe(r.id) || r.status == probes::ProbeStatus::pass) continue;
    if (r.status == probes::ProbeStatus::skip || r.status == probes::ProbeStatus::not_run) continue;
    if (r.reason.find(*advice) != std::string::npos) continue;
    r.reason += (r.reason.empty() ? "" : " ") + std::string("[") + *advice + "]";
    r.details["power_advice"] = *advice;
  }
}

}  // namespace jetgate::evidence
