// SPDX-License-Identifier: Apache-2.0
// /platform/tegra/driver: the GPU driver stack as the kernel and /dev show it.
// Reported on every machine (the dGPU nodes and modules are listed too), since
// a missing piece is exactly what bring-up on custom kernels gets wrong.
#include <algorithm>
#include <array>
#include <string_view>

#include "jetgate/facts/cdi.hpp"
#include "jetgate/facts/cdi_dirs.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/gpu_stack.hpp"
#include "jetgate/facts/proc_modules.hpp"

namespace jetgate::facts {
namespace {

// Modules of the Tegra (nvgpu) and discrete (nvidia) GPU stacks. Others whose
// names start with these prefixes are reported too.
constexpr std::array<std::string_view, 17> kGpuModules{
    "nvgpu",    "host1x",         "host1x_fence",   "host1x_nvhost",        "nvhost_ctrl_shim",
    "nvmap",    "mc_utils",       "tegra_drm",      "governor_pod_scaling", "nvhwpm",
    "nvidia",   "nvidia_uvm",     "nvidia_modeset", "nvidia_drm",           "nvidia_peermem",
    "nvsciipc", "nvidia_vrs_pseq"};
constexpr std::array<std::string_view, 3> kGpuModulePrefixes{"nvgpu", "nvidia", "host1x"};

constexpr std::array<std::string_view, 17> kGpuNodes{
    "/dev/nvhost-ctrl",         "/dev/nvhost-ctrl-gpu",  "/dev/nvhost-gpu",
    "/dev/nvhost-as-gpu",       "/dev/nvhost-prof-gpu",  "/dev/nvmap",
    "/dev/host1x-fence",        "/dev/nvgpu/igpu0/ctrl", "/dev/nvgpu/igpu0/as",
    "/dev/nvgpu/igpu0/channel", "/dev/nvgpu/igpu0/tsg",  "/dev/nvgpu/igpu0/prof",
    "/dev/nvidiactl",           "/dev/nvidia-uvm",       "/dev/nvidia-uvm-tools",
    "/dev/nvidia-modeset",      "/dev/dri/renderD128"};

bool is_gpu_module(const std::string& name) {
  for (auto m : kGpuModules)
    if (name == m) return true;
  for (auto p : kGpuModulePrefixes)
    if (name.rfind(p, 0) == 0) return true;
  return false;
}

std::string mode_string(unsigned mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", mode & 07777u);
  return buf;
}

nlohmann::json node_json(CollectContext& ctx, const std::string& path) {
  auto info = ctx.node(path);
  nlohmann::json j = {{"path", path}, {"present", info.present()}};
  if (info.present()) {
    j["type"] = fs::to_string(info.type);
    j["mode"] = mode_string(info.mode);
  }
  return j;
}

nlohmann::json modules_json(CollectContext& ctx) {
  nlohmann::json loaded = nlohmann::json::array();
  auto text = ctx.read("/proc/modules", keys::kTegraDriverModules);
  if (!text) return loaded;
  for (const auto& m : parse_proc_modules(*text)) {
    if (!is_gpu_module(m.name)) continue;
    loaded.push_back({{"name", m.name},
                      {"size", m.size},
                      {"refcount", m.refcount},
                      {"used_by", m.used_by},
                      {"state", m.state}});
  }
  return loaded;
}

// /dev/nvidia0, /dev/nvidia1, ...: one per discrete GPU.
std::vector<std::string> numbered_nvidia_nodes(CollectContext& ctx) {
  std::vector<std::string> out;
  auto names = ctx.device_root().list("/dev");
  if (!names.ok()) return out;
  for (const auto& n : *names) {
    if (n.size() > 6 && n.rfind("nvidia", 0) == 0 &&
        n.find_first_not_of("0123456789", 6) == std::string::npos)
      out.push_back("/dev/" + n);
  }
  return out;
}

// /dev/dri/renderD<N> and /dev/dri/card<N> beyond the fixed list: the render
// node the L4T 36 stack's CUDA enumerates the iGPU through may have any number.
std::vector<std::string> dri_nodes(CollectContext& ctx) {
  std::vector<std::string> out;
  auto names = ctx.device_root().list("/dev/dri");
  if (!names.ok()) return out;
  for (const auto& n : *names) {
    std::string path = "/dev/dri/" + n;
    if (path == "/dev/dri/renderD128") continue;  // in kGpuNodes
    if (node_path_matches("/dev/dri/renderD*", path) || node_path_matches("/dev/dri/card*", path))
      out.push_back(path);
    if (out.size() >= 16) break;
  }
  std::sort(out.begin(), out.end());
  return out;
}

constexpr std::size_t kMaxSpecsPerDir = 64;
constexpr std::size_t kMaxNodesPerSpec = 256;
// The CDI facts as a whole: the device names and node paths kept from every spec
// together. Large specs once made `run` write 21 MB of evidence, which every reader
// refuses (evidence::kMaxEvidenceBytes, 8 MiB); what is left out is counted and said.
constexpr std::size_t kMaxCdiKeptBytes = std::size_t{1} << 20;

nlohmann::json cdi_json(CollectContext& ctx, nlohmann::json& searched) {
  nlohmann::json specs = nlohmann::json::array();
  std::size_t kept = 0;  // bytes of device names and node paths kept so far
  auto keep = [&kept](std::size_t bytes) {
    if (kept + bytes > kMaxCdiKeptBytes) return false;
    kept += bytes;
    return true;
  };
  searched = nlohmann::json::array();
  for (const auto& dir : cdi_spec_dirs(ctx)) {
    auto names = ctx.root().list(dir.path);
    nlohmann::json where = {{"path", dir.path},
                            {"from", dir.from},
                            {"exists", names.ok()},
                            {"specs", 0},
                            {"truncated", false}};
    if (!names.ok()) {
      searched.push_back(where);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& n : *names) {
      auto dot = n.rfind('.');
      std::string ext = dot == std::string::npos ? "" : n.substr(dot);
      if (ext == ".yaml" || ext == ".yml" || ext == ".json") files.push_back(n);
    }
    std::sort(files.begin(), files.end());
    if (files.size() > kMaxSpecsPerDir) {
      files.resize(kMaxSpecsPerDir);
      where["truncated"] = true;
    }
    where["specs"] = files.size();
    searched.push_back(where);
    for (const auto& n : files) {
      std::string path = (dir.path + "/").append(n);
      nlohmann::json entry = {{"path", path},
                              {"kind", nullptr},
                              {"cdi_version", nullptr},
                              {"devices", nlohmann::json::array()},
                              {"device_nodes", nlohmann::json::array()},
                              {"missing_nodes", nullptr},
                              {"error", nullptr}};
      auto text = ctx.read(path, keys::kTegraDriverCdi);
      if (!text) {
        entry["error"] = "unreadable";
        specs.push_back(entry);
        continue;
      }
      auto spec = parse_cdi_spec(*text);
      if (!spec.ok()) {
        entry["error"] = spec.error().message();
        ctx.warn(keys::kTegraDriverCdi, ctx.root().display(path), spec.error().message());
        specs.push_back(entry);
        continue;
      }
      entry["kind"] = spec->kind;
      entry["cdi_version"] = spec->cdi_version;
      std::size_t left_out = 0;
      for (const auto& d : spec->devices) {
        if (keep(d.size() + 8))
          entry["devices"].push_back(d);
        else
          ++left_out;
      }
      int missing = 0;
      for (const auto& node : spec->device_nodes) {
        bool present = ctx.node(node.host_path).present();
        missing += present ? 0 : 1;
        if (entry["device_nodes"].size() >= kMaxNodesPerSpec) continue;
        if (!keep(node.path.size() + node.host_path.size() + 64)) {
          ++left_out;
          continue;
        }
        entry["device_nodes"].push_back({{"path", node.path},
                                         {"host_path", node.host_path},
                                         {"present", present},
                                         {"fully_specified", node.fully_specified}});
      }
      entry["missing_nodes"] = missing;
      if (left_out > 0)
        ctx.warn(keys::kTegraDriverCdi, ctx.root().display(path),
                 std::to_string(left_out) +
                     " device names and nodes of this spec are not kept: the CDI facts keep " +
                     std::to_string(kMaxCdiKeptBytes >> 20) +
                     " MiB of names and paths from all specs together, so the evidence stays "
                     "within what its readers accept (missing_nodes still counts every node)");
      specs.push_back(entry);
    }
  }
  return specs;
}

}  // namespace

void collect_gpu_stack(CollectContext& ctx, nlohmann::json& tegra) {
  nlohmann::json nodes = nlohmann::json::array();
  for (auto p : kGpuNodes) nodes.push_back(node_json(ctx, std::string(p)));
  for (const auto& p : numbered_nvidia_nodes(ctx)) nodes.push_back(node_json(ctx, p));
  for (const auto& p : dri_nodes(ctx)) nodes.push_back(node_json(ctx, p));
  tegra[in_tegra(keys::kTegraDriverModules)] = modules_json(ctx);
  tegra[in_tegra(keys::kTegraDriverDeviceNodes)] = std::move(nodes);
  nlohmann::json searched;
  tegra[in_tegra(keys::kTegraDriverCdi)] = cdi_json(ctx, searched);
  tegra[in_tegra(keys::kTegraDriverCdiDirs)] = std::move(searched);
}

}  // namespace jetgate::facts
