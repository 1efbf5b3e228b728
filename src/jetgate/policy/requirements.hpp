// SPDX-License-Identifier: Apache-2.0
// A gate's "requires", checked against the facts before anything runs: the
// platform and GPU facts of a record::Record (arch, is_tegra, the L4T release,
// the JetPack versions, module, part number, SoC, the nvpmodel mode; the CUDA
// driver, its version, the devices and their memory). A fact that is unknown
// (null, absent or of another type) never meets a requirement.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/policy/policy.hpp"
#include "jetgate/record/record.hpp"

namespace jetgate::policy {

struct RequirementOutcome {
  std::string requirement;  // "arch in [aarch64]", "l4t >= 36.0", ...
  bool met = false;
  std::string why;  // what was found
};

std::vector<RequirementOutcome> evaluate_requirements(const Requirements& r,
                                                      const record::Record& facts);
// The same for the /platform and /gpu objects of a document (either may be
// null), read with record::read_facts.
std::vector<RequirementOutcome> evaluate_requirements(const Requirements& r,
                                                      const nlohmann::json& platform,
                                                      const nlohmann::json& gpu);
bool all_met(const std::vector<RequirementOutcome>& outcomes);

// The requirements read from platform facts (arch, is_tegra, l4t), checked
// before the GPU is touched: on a machine that is not a Jetson there is no
// reason to initialise CUDA at all; and the ones only a loaded driver can
// answer (cuda, min_cuda_driver, min_memory_bytes).
Requirements platform_part(const Requirements& r);
Requirements gpu_part(const Requirements& r);
nlohmann::json to_json(const std::vector<RequirementOutcome>& outcomes);

// Compares version with bound on the bound's components only: "36.4.3" vs
// "36" -> 0; vs "36.5" -> -1. nullopt when either is not a dotted version.
std::optional<int> compare_version_prefix(const std::string& version, const std::string& bound);

}  // namespace jetgate::policy
