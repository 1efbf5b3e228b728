// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/gpu_facts.hpp"

#include <optional>
#include <string>

#include "jetgate/evidence/power_notes.hpp"
#include "jetgate/facts/container_host.hpp"

namespace jetgate::evidence {

void join_gpu_facts(probes::CudaSection& section, nlohmann::json& platform) {
  cite_power_facts(section, platform);
  std::optional<std::string> driver;
  const auto ptr = nlohmann::json::json_pointer("/driver/version");
  if (section.gpu.contains(ptr) && section.gpu[ptr].is_string())
    driver = section.gpu[ptr].get<std::string>();
  auto check = facts::check_container_l4t(platform, driver);
  if (!check.is_null()) platform["container"]["l4t_check"] = std::move(check);
}

}  // namespace jetgate::evidence
