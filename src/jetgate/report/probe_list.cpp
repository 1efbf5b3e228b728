// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/probe_list.hpp"

#include <fmt/format.h>

#include "jetgate/probes/registry.hpp"

namespace jetgate::report {
namespace {

const char* kind_name(probes::ProbeKind k) {
  return k == probes::ProbeKind::cuda ? "cuda" : "python";
}

}  // namespace

nlohmann::json probe_list_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& p : probes::probe_registry()) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const auto& m : p.metrics)
      metrics.push_back({{"name", m.name},
                         {"unit", m.unit},
                         {"better", probes::to_string(m.better)},
                         {"speed", m.speed},
                         {"what", m.what}});
    list.push_back({{"id", p.id},
                    {"kind", kind_name(p.kind)},
                    {"what", p.what},
                    {"by_default", p.by_default},
                    {"measures_speed", p.measures_speed},
                    {"metrics", std::move(metrics)}});
  }
  return {{"schema_version", 1}, {"probes", std::move(list)}};
}

std::string render_probe_list_text() {
  std::string out;
  for (const auto& p : probes::probe_registry()) {
    out += fmt::format("{} ({}{}): {}\n", p.id, kind_name(p.kind),
                       p.by_default ? "" : ", only when named", p.what);
    for (const auto& m : p.metrics)
      out += fmt::format("  {:<34} {:<9} {:<7} {}\n", m.name, m.unit,
                         m.better == probes::Better::neither ? "" : probes::to_string(m.better),
                         m.what);
  }
  return out;
}

std::string render_probe_list_markdown() {
  std::string out = "| probe | metric | unit | better | what |\n|---|---|---|---|---|\n";
  for (const auto& p : probes::probe_registry())
    for (const auto& m : p.metrics)
      out += fmt::format("| `{}` | `{}` | {} | {} | {} |\n", p.id, m.name, m.unit,
                         m.better == probes::Better::neither ? "-" : probes::to_string(m.better),
                         m.what);
  return out;
}

}  // namespace jetgate::report
