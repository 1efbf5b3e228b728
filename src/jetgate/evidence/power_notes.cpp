#include "jetgate/evidence/power_notes.hpp"

#include <array>
#include <string_view>

#include "jetgate/facts/power.hpp"

namespace jetgate::evidence {

namespace {
constexpr std::array<std::string_view, 3> kSpeedProbes = {"bandwidth", "sync_path", "decode"};

bool is_speed_probe(const std::string& id) {
  for (auto p : kSpeedProbes)
    if (id == p) return true;
  return false;
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
