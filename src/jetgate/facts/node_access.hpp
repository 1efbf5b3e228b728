// SPDX-License-Identifier: Apache-2.0
// What a platform engineer checks first on a bring-up: for every GPU device
// node CUDA should open here (and every other known GPU node that exists), who
// owns it, its mode and major:minor, and whether this process's uid can open
// it for read/write. The open is real (open(2), then close): access(2) checks
// the real uid against the permission bits only, while what stops CUDA in a
// pod is as often the device cgroup (EPERM) or a node with no driver behind
// it (ENXIO), which only an open shows. /platform/tegra/driver/node_access.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "jetgate/fs/root_fs.hpp"

namespace jetgate::facts {

class CollectContext;

// "crw-rw----" as ls -l writes it (type letter, then rwx with s/S/t/T).
std::string permission_string(fs::NodeType type, unsigned mode);

struct NodeAccess {
  std::string path;
  fs::NodeInfo info;
  std::optional<unsigned> uid, gid;  // nullopt: a recording that did not keep them
  std::optional<std::string> owner;  // user name of uid, when known
  std::optional<std::string> group;  // group name of gid, when known
  std::optional<bool> openable;      // nullopt: not tried (a recording)
  int open_errno = 0;                // the errno of a failed open
};

// One node on the live machine (or any root whose nodes are real): stat, the
// owner's and group's names through this process's NSS (getpwuid_r,
// getgrgid_r: the pod's /etc/passwd in a pod), and, when try_open, a real
// open for read/write (RootFs::open_rw_errno) as the current uid.
NodeAccess check_node_access(const fs::RootFs& root, const std::string& path, bool try_open);

// {path, provides, expected, present, type, major, minor, uid, owner, gid,
// group, mode, permissions, openable, open_error}
nlohmann::json to_json(const NodeAccess& a, const std::optional<std::string>& provides);

// What to do about a node that exists but this uid cannot open; "" when it opened.
std::string node_access_advice(const NodeAccess& a, unsigned uid,
                               const std::optional<std::string>& user);

// Adds /platform/tegra/driver/node_access, warns for each node that exists but
// cannot be opened, for each node this stack's CUDA opens that is absent (what it
// is for and what creates it, from data/gpu-stack.json), and for every device
// node of a CDI spec that is absent (the container will not start).
// platform holds /tegra (soc, l4t, driver/modules, device_nodes, cdi,
// expected_modules) already.
void collect_node_access(CollectContext& ctx, nlohmann::json& platform);

}  // namespace jetgate::facts
