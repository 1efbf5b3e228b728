// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/gpu_facts.hpp"

#include <optional>
#include <string>

#include "jetgate/evidence/power_notes.hpp"
#include "jetgate/facts/container_host.hpp"
#include "jetgate/facts/cuda_nodes.hpp"

namespace jetgate::evidence {

namespace {

// The nodes the CUDA child held open with a context on the probe device, against
// the ones this platform should use: /platform/tegra/driver/cuda_nodes, and a
// note for `probe`'s text naming each one missing.
void note_cuda_nodes(probes::CudaSection& section, nlohmann::json& platform) {
  const auto ptr = nlohmann::json::json_pointer("/devices/0/open_device_nodes");
  if (!section.gpu.contains(ptr)) return;
  auto cmp = facts::compare_cuda_nodes(platform, section.gpu[ptr]);
  if (cmp.is_null()) return;
  if (!cmp["missing"].empty()) {
    std::string list;
    for (const auto& m : cmp["missing"]) list += (list.empty() ? "" : ", ") + m.get<std::string>();
    section.notes.push_back("the CUDA process did not open " + list + ", which " +
                            cmp["platform"].get<std::string>() + " uses (" +
                            cmp["source"].get<std::string>() + ")");
  }
  if (platform.contains("tegra") && platform["tegra"].contains("driver"))
    platform["tegra"]["driver"]["cuda_nodes"] = std::move(cmp);
}

}  // namespace

void join_gpu_facts(probes::CudaSection& section, nlohmann::json& platform) {
  cite_power_facts(section, platform);
  std::optional<std::string> driver;
  const auto ptr = nlohmann::json::json_pointer("/driver/version");
  if (section.gpu.contains(ptr) && section.gpu[ptr].is_string())
    driver = section.gpu[ptr].get<std::string>();
  auto check = facts::check_container_l4t(platform, driver);
  if (!check.is_null()) platform["container"]["l4t_check"] = std::move(check);
  note_cuda_nodes(section, platform);
}

}  // namespace jetgate::evidence
