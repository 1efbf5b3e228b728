// SPDX-License-Identifier: Apache-2.0
// Shared by the fact collectors: reads through the root, turns unreadable or
// unparsable files into warnings that name the file.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/facts/warning.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::facts {

// jetgate-root.json holds {"machine", "nodes": {path: {...}}}: nothing deeper.
inline constexpr int kSidecarMaxDepth = 16;

// Where the device nodes this process would open live, when that is not the
// facts' root; live: they are real nodes of the running system, to be opened.
struct DeviceNodes {
  const fs::RootFs* root = nullptr;  // null: the facts' root
  bool live = false;
};

class CollectContext {
 public:
  CollectContext(const fs::RootFs& root, const CollectOptions& options,
                 std::vector<Warning>& warnings, DeviceNodes devices = {});

  const fs::RootFs& root() const { return root_; }
  // The facts are the running machine's: the live root, or the live host
  // mounted at a directory (CollectOptions::own_root); never a recording.
  bool facts_live() const { return root_.is_live() || options_.own_root != nullptr; }
  // Where the device nodes this process would open are, and whether they are
  // the running system's own (then node_access opens them).
  const fs::RootFs& device_root() const { return devices_.root ? *devices_.root : root_; }
  bool devices_live() const { return devices_.root ? devices_.live : root_.is_live(); }
  const CollectOptions& options() const { return options_; }

  // The file's text, or nullopt. A missing file is silent (most facts are
  // optional); any other failure becomes a warning about `fact`.
  std::optional<std::string> read(const std::string& path, const keys::Pointer& fact,
                                  std::size_t max_bytes = fs::kDefaultMaxBytes);
  void warn(const keys::Pointer& fact, const std::string& source, const std::string& message);

  // A device-tree property, from /proc/device-tree or its target
  // /sys/firmware/devicetree/base (containers and recorders may keep only one).
  std::optional<std::string> read_device_tree(const std::string& property,
                                              const keys::Pointer& fact);

  // Installed dpkg packages (name -> version), read once; empty without dpkg.
  const std::map<std::string, std::string>& dpkg();

  // The recorded root's sidecar (jetgate-root.json), or an empty object.
  const nlohmann::json& sidecar() const { return sidecar_; }
  // A device node as the machine had it: the sidecar's record for a recorded
  // root (git cannot store device nodes), else stat() under device_root().
  fs::NodeInfo node(const std::string& path) const;

 private:
  void load_sidecar();

  const fs::RootFs& root_;
  const CollectOptions& options_;
  std::vector<Warning>& warnings_;
  DeviceNodes devices_;
  nlohmann::json sidecar_ = nlohmann::json::object();
  std::optional<std::map<std::string, std::string>> dpkg_;
};

nlohmann::json json_or_null(const std::optional<std::string>& v);

// A documented key inside the objects the collectors build: `out` lands at /platform,
// collect_tegra's object at /platform/tegra (keys::relative, which throws for a key
// outside them).
inline keys::Pointer in_platform(const keys::Pointer& key) {
  return keys::relative(key, keys::kPlatform);
}
inline keys::Pointer in_tegra(const keys::Pointer& key) {
  return keys::relative(key, keys::kPlatformTegra);
}

// Collectors, one per group of the report. Each writes its keys into `out`.
void collect_host(CollectContext& ctx, nlohmann::json& out);         // arch, kernel, os, memory
void collect_tegra(CollectContext& ctx, nlohmann::json& out);        // /tegra
void collect_gpu_stack(CollectContext& ctx, nlohmann::json& tegra);  // /tegra/driver
void collect_power(CollectContext& ctx, nlohmann::json& out);        // /power
void collect_container(CollectContext& ctx, nlohmann::json& out);    // /container
// What shows that the root is a container's (/.dockerenv, /run/.containerenv, a
// runtime's name in /proc/1/cgroup), or nullopt.
std::optional<std::string> container_sign(CollectContext& ctx);
// Whether the device nodes this process opens are a container's: --host-root (the
// process runs in a pod beside the host's mount) or a container sign in the root.
bool devices_in_container(CollectContext& ctx);
// /container under --host-root: the container is `own` (this process's root),
// the host is `host` (the mount), whose /etc/nv_tegra_release is the host's.
void collect_host_mount_container(CollectContext& own, CollectContext& host, nlohmann::json& out);
void collect_cuda_stack(CollectContext& ctx, nlohmann::json& out);  // /cuda, /nvidia_driver
void collect_libraries(CollectContext& ctx, nlohmann::json& out);   // /libraries

}  // namespace jetgate::facts
