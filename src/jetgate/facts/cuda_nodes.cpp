// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/cuda_nodes.hpp"

#include <algorithm>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/facts/container_images.hpp"

namespace jetgate::facts {
namespace {

// A documented key inside the /platform object these functions read.
keys::Pointer platform_key(const keys::Pointer& key) {
  return keys::relative(key, keys::kPlatform);
}

bool module_loaded(const nlohmann::json& platform, const std::string& name) {
  const auto* modules = keys::find(platform, platform_key(keys::kTegraDriverModules));
  if (!modules || !modules->is_array()) return false;
  return std::any_of(modules->begin(), modules->end(), [&](const nlohmann::json& m) {
    return m.is_object() && m.value("name", "") == name;
  });
}

}  // namespace

ExpectedNodes expected_cuda_nodes(const nlohmann::json& platform) {
  bool tegra = keys::bool_at(platform, platform_key(keys::kIsTegra)).value_or(false);
  std::string soc = keys::string_at(platform, platform_key(keys::kSoc));
  std::string l4t = keys::string_at(platform, platform_key(keys::kL4t));
  int major = l4t.empty() ? 0 : l4t_major(l4t);
  ExpectedNodes e;
  if (!tegra) {
    // Measured on the H200 (bench/cuda_open_nodes.c, docs/probes.md): after cuInit
    // the process holds /dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm.
    if (!module_loaded(platform, "nvidia")) return e;
    e.platform = "a discrete NVIDIA GPU";
    e.source = "bench/cuda_open_nodes.c on an H200, driver 580.159.04 (docs/probes.md)";
    e.nodes = {{"/dev/nvidiactl", "the driver's control node"},
               {"/dev/nvidia-uvm", "unified memory"}};
    return e;
  }
  if (soc == "tegra264") {
    e.platform = "tegra264 (OpenRM)";
    e.source =
        "NVIDIA Jetson Linux r39.2 developer guide: Thor runs the unified OpenRM driver "
        "(nvidia, nvidia-uvm), whose nodes are /dev/nvidiactl, /dev/nvidia0 and "
        "/dev/nvidia-uvm as on a discrete GPU (bench/cuda_open_nodes.c)";
    e.nodes = {{"/dev/nvidiactl", "the driver's control node"},
               {"/dev/nvidia-uvm", "unified memory"}};
    return e;
  }
  bool nvgpu_stack = major >= 36 || (major == 0 && module_loaded(platform, "nvgpu"));
  if (soc == "tegra234" && nvgpu_stack) {
    e.platform = major ? "tegra234 on L4T " + std::to_string(major) : "tegra234 with nvgpu";
    e.source =
        "siderolabs/pkgs pull request #1518 (Jetson Orin GPU stack for Talos): 'The JetPack "
        "6 CUDA runtime (libnvrm_host1x.so) requires /dev/nvhost-ctrl for "
        "cudaStreamSynchronize'; /dev/nvgpu/igpu0/ctrl and /dev/nvmap from the L4T 36 "
        "container device list (OE4T meta-tegra tegra-configs devices.csv)";
    e.nodes = {{"/dev/nvmap", "GPU memory allocation"},
               {"/dev/nvgpu/igpu0/ctrl", "the GPU's control node"},
               {"/dev/nvhost-ctrl",
                "syncpoint waits; without it CUDA falls back to polling for completion"}};
    return e;
  }
  if ((soc == "tegra234" || soc == "tegra194" || soc == "tegra186" || soc == "tegra210") &&
      major >= 32 && major <= 35) {
    e.platform = soc + " on L4T " + std::to_string(major);
    e.source =
        "the L4T 32/35 container CSV lists (OE4T meta-tegra tegra-configs devices.csv): "
        "/dev/nvhost-ctrl, /dev/nvhost-ctrl-gpu, /dev/nvmap";
    e.nodes = {{"/dev/nvmap", "GPU memory allocation"},
               {"/dev/nvhost-ctrl-gpu", "the GPU's control node"},
               {"/dev/nvhost-ctrl", "syncpoint waits"}};
  }
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
    bool is_open = std::find(held.begin(), held.end(), n.path) != held.end();
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
