// SPDX-License-Identifier: Apache-2.0
// The device nodes a CUDA process on this platform should hold open (the
// cuda_opens nodes of the data/gpu-stack.json row for this SoC and release),
// against the ones the CUDA child really held (/gpu/devices/N/open_device_nodes,
// read from /proc/self/fd in the child).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace jetgate::facts {

struct ExpectedNode {
  std::string path;      // "/dev/nvmap", or "/dev/dri/renderD*" (any render node)
  std::string provides;  // what CUDA uses it for
  std::string module;    // the module that creates it; "" when the sources do not say
};

struct ExpectedNodes {
  std::vector<ExpectedNode> nodes;  // empty: no expectation for this platform
  std::string platform;             // "L4T 36 (JetPack 6)"
  std::string source;               // where the list comes from
};

// From the /platform object (tegra.is_tegra, tegra.soc, tegra.l4t, the loaded
// modules, and driver.stack when the facts chose the row).
ExpectedNodes expected_cuda_nodes(const nlohmann::json& platform);

// {"open": [...], "expected": [{path, provides, open}], "missing": [...],
// "platform", "source"}, or null when open is not a list of strings. A table
// path ending in '*' is held when any node of that prefix and digits is.
nlohmann::json compare_cuda_nodes(const nlohmann::json& platform, const nlohmann::json& open);

}  // namespace jetgate::facts
