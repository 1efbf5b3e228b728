// SPDX-License-Identifier: Apache-2.0
// The device nodes a CUDA process on this platform should hold open (per SoC
// and L4T release), against the ones the CUDA child really held
// (/gpu/devices/N/open_device_nodes, read from /proc/self/fd in the child).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace jetgate::facts {

struct ExpectedNode {
  std::string path;      // "/dev/nvmap"
  std::string provides;  // what CUDA uses it for
};

struct ExpectedNodes {
  std::vector<ExpectedNode> nodes;  // empty: no expectation for this platform
  std::string platform;             // "tegra234 on L4T 36"
  std::string source;               // where the list comes from
};

// From the /platform object (tegra.is_tegra, tegra.soc, tegra.l4t, and the
// loaded modules for a Jetson without an L4T release).
ExpectedNodes expected_cuda_nodes(const nlohmann::json& platform);

// {"open": [...], "expected": [{path, provides, open}], "missing": [...],
// "platform", "source"}, or null when open is not a list of strings.
nlohmann::json compare_cuda_nodes(const nlohmann::json& platform, const nlohmann::json& open);

}  // namespace jetgate::facts
