// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/cuda_nodes.hpp"

#include <algorithm>

#include "jetgate/facts/gpu_stack.hpp"

namespace jetgate::facts {

ExpectedNodes expected_cuda_nodes(const nlohmann::json& platform) {
  ExpectedNodes e;
  const GpuStack* s = select_gpu_stack(platform);
  if (s == nullptr) return e;
  e.platform = s->name;
  e.source = s->source;
  for (const auto& n : s->nodes)
    if (n.cuda_opens) e.nodes.push_back({n.path, n.provides, n.module.value_or("")});
  return e;
}

nlohmann::json compare_cuda_nodes(const nlohmann::json& platform, const nlohmann::json& open) {
  if (!open.is_array()) return nullptr;
  std::vector<std::string> held;
  for (const auto& o : open) {
    if (!o.is_string()) return nullptr;
    held.push_back(o.get<std::string>());
  }
  auto e = expected_cuda_nodes(platform);
  nlohmann::json expected = nlohmann::json::array();
  nlohmann::json missing = nlohmann::json::array();
  for (const auto& n : e.nodes) {
    bool is_open = std::any_of(held.begin(), held.end(),
                               [&](const std::string& h) { return node_path_matches(n.path, h); });
    expected.push_back({{"path", n.path}, {"provides", n.provides}, {"open", is_open}});
    if (!is_open) missing.push_back(n.path);
  }
  return {{"open", held},
          {"expected", expected},
          {"missing", missing},
          {"platform", e.platform.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.platform)},
          {"source", e.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.source)}};
}

}  // namespace jetgate::facts
