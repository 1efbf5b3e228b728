// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/node_access.hpp"

#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/cuda_nodes.hpp"

namespace jetgate::facts {
namespace {

constexpr const char* kOpenMethod = "open(O_RDWR|O_NONBLOCK|O_NOCTTY|O_CLOEXEC), then close";
constexpr const char* kNvhostCtrl = "/dev/nvhost-ctrl";

std::optional<std::string> user_name(unsigned uid) {
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* out = nullptr;
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &out) != 0 || out == nullptr)
    return std::nullopt;
  return std::string(out->pw_name);
}

std::optional<std::string> group_name(unsigned gid) {
  std::vector<char> buf(16384);
  group gr{};
  group* out = nullptr;
  if (::getgrgid_r(gid, &gr, buf.data(), buf.size(), &out) != 0 || out == nullptr)
    return std::nullopt;
  return std::string(out->gr_name);
}

std::string mode_octal(unsigned mode) {
  return fmt::format("{:04o}", mode & 07777u);
}

char type_letter(fs::NodeType t) {
  switch (t) {
    case fs::NodeType::char_device:
      return 'c';
    case fs::NodeType::block_device:
      return 'b';
    case fs::NodeType::directory:
      return 'd';
    case fs::NodeType::fifo:
      return 'p';
    case fs::NodeType::socket:
      return 's';
    case fs::NodeType::regular:
      return '-';
    case fs::NodeType::missing:
    case fs::NodeType::other:
      break;
  }
  return '?';
}

// "user (uid 1000)" or "uid 1000".
std::string who(unsigned uid, const std::optional<std::string>& name) {
  return name ? fmt::format("{} (uid {})", *name, uid) : fmt::format("uid {}", uid);
}

std::string owner_text(const NodeAccess& a) {
  auto one = [](const std::optional<unsigned>& id, const std::optional<std::string>& name) {
    if (!id) return std::string("?");
    return name ? fmt::format("{}({})", *name, *id) : std::to_string(*id);
  };
  return one(a.uid, a.owner) + ":" + one(a.gid, a.group);
}

// The recorded node's owner, from jetgate-root.json ("uid", "gid", "owner",
// "group"; scripts/jetgate-record-root.sh keeps them since this key exists).
void recorded_owner(const CollectContext& ctx, NodeAccess& a) {
  const auto& side = ctx.sidecar();
  if (!side.contains("nodes") || !side["nodes"].is_object()) return;
  auto it = side["nodes"].find(a.path);
  if (it == side["nodes"].end() || !it->is_object()) return;
  auto id = [&](const char* k) -> std::optional<unsigned> {
    if (it->contains(k) && (*it)[k].is_number_unsigned() &&
        (*it)[k].get<std::uint64_t>() <= 0xFFFFFFFFu)
      return (*it)[k].get<unsigned>();
    return std::nullopt;
  };
  auto name = [&](const char* k) -> std::optional<std::string> {
    if (it->contains(k) && (*it)[k].is_string() && !(*it)[k].get<std::string>().empty() &&
        (*it)[k].get<std::string>().size() <= 64)
      return (*it)[k].get<std::string>();
    return std::nullopt;
  };
  a.uid = id("uid");
  a.gid = id("gid");
  a.owner = name("owner");
  a.group = name("group");
}

// The module the expected-module table says provides /dev/nvhost-*, and the
// loaded modules whose names say nvhost.
std::string nvhost_module_advice(const nlohmann::json& platform) {
  std::string provider;
  const auto* expected = keys::find(platform, in_platform(keys::kTegraDriverExpectedModules));
  if (expected && expected->is_array())
    for (const auto& m : *expected)
      if (m.is_object() && m.value("provides", "").find("/dev/nvhost-") != std::string::npos) {
        provider = m.value("name", "");
        bool loaded = m.value("loaded", false) || m.value("built_in", false);
        provider = fmt::format(
            "the module table names {} ({}) for this SoC and stack{}: load it (`modprobe {}`) "
            "or build it into the OS image",
            provider, m.value("provides", ""),
            loaded ? ", and it is loaded, yet the node is absent" : "", provider);
        break;
      }
  if (provider.empty())
    provider =
        "jetgate's module table names no module for /dev/nvhost-ctrl on this SoC and stack; on "
        "L4T 36 it is host1x_nvhost, the nvhost interface on top of host1x";
  std::string shims;
  const auto* loaded = keys::find(platform, in_platform(keys::kTegraDriverModules));
  if (loaded && loaded->is_array())
    for (const auto& m : *loaded) {
      std::string n = m.is_object() ? m.value("name", "") : "";
      if (n.find("nvhost") != std::string::npos && n != "host1x_nvhost")
        shims += (shims.empty() ? "" : ", ") + n;
    }
  if (!shims.empty())
    provider += fmt::format(
        "; {} is loaded but no {} exists: check in the kernel log that it registered the node, "
        "and that devtmpfs/udev created it",
        shims, kNvhostCtrl);
  return provider;
}

void warn_cdi_missing_nvhost(CollectContext& ctx, const nlohmann::json& platform) {
  const auto* specs = keys::find(platform, in_platform(keys::kTegraDriverCdi));
  if (!specs || !specs->is_array()) return;
  for (const auto& spec : *specs) {
    if (!spec.is_object() || !spec.contains("device_nodes") || !spec["device_nodes"].is_array())
      continue;
    for (const auto& n : spec["device_nodes"]) {
      if (!n.is_object() || n.value("host_path", "") != kNvhostCtrl || n.value("present", true))
        continue;
      ctx.warn(keys::kTegraDriverCdi, ctx.root().display(spec.value("path", "")),
               fmt::format(
                   "the CDI spec injects {}, which does not exist on this machine. What is "
                   "reported to follow (siderolabs/pkgs PR #1518, reported, not shown here): "
                   "JetPack 6's CUDA runtime cannot wait on host1x syncpoints and falls back to "
                   "polling for completion (correct results, a busy CPU core per wait, slower "
                   "decoding). `jetgate probe --probe sync_path` settles it on this board: it "
                   "measures the blocking-sync wait mode (interrupt-driven or busy-polling) and "
                   "its CPU cost (sync_blocking_sync_cpu_fraction); `--probe nvhost_ctrl` checks "
                   "the ioctls once the node exists. What to load: {}",
                   kNvhostCtrl, nvhost_module_advice(platform)));
      break;
    }
  }
}

}  // namespace

std::string permission_string(fs::NodeType type, unsigned mode) {
  std::string s(10, '-');
  s[0] = type_letter(type);
  const char* rwx = "rwxrwxrwx";
  for (int i = 0; i < 9; ++i)
    if (mode & (0400u >> i)) s[1 + i] = rwx[i];
  auto special = [&](int at, unsigned bit, char set, char unset_x) {
    if (mode & bit) s[at] = s[at] == 'x' ? set : unset_x;
  };
  special(3, 04000u, 's', 'S');
  special(6, 02000u, 's', 'S');
  special(9, 01000u, 't', 'T');
  return s;
}

NodeAccess check_node_access(const fs::RootFs& root, const std::string& path, bool try_open) {
  NodeAccess a;
  a.path = path;
  a.info = root.stat(path);
  if (!a.info.present()) return a;
  a.uid = a.info.uid;
  a.gid = a.info.gid;
  a.owner = user_name(a.info.uid);
  a.group = group_name(a.info.gid);
  if (try_open &&
      (a.info.type == fs::NodeType::char_device || a.info.type == fs::NodeType::block_device)) {
    a.open_errno = root.open_rw_errno(path);
    a.openable = a.open_errno == 0;
  }
  return a;
}

nlohmann::json to_json(const NodeAccess& a, const std::optional<std::string>& provides) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  bool present = a.info.present();
  nlohmann::json j = {{"path", a.path},
                      {"provides", opt(provides)},
                      {"expected", provides.has_value()},
                      {"present", present},
                      {"type", nullptr},
                      {"major", nullptr},
                      {"minor", nullptr},
                      {"uid", opt(a.uid)},
                      {"owner", opt(a.owner)},
                      {"gid", opt(a.gid)},
                      {"group", opt(a.group)},
                      {"mode", nullptr},
                      {"permissions", nullptr},
                      {"openable", opt(a.openable)},
                      {"open_error", nullptr}};
  if (present) {
    j["type"] = fs::to_string(a.info.type);
    bool device =
        a.info.type == fs::NodeType::char_device || a.info.type == fs::NodeType::block_device;
    if (device) {
      j["major"] = a.info.major;
      j["minor"] = a.info.minor;
    }
    j["mode"] = mode_octal(a.info.mode);
    j["permissions"] = permission_string(a.info.type, a.info.mode);
  }
  if (a.openable == false) j["open_error"] = std::strerror(a.open_errno);
  return j;
}

std::string node_access_advice(const NodeAccess& a, unsigned uid,
                               const std::optional<std::string>& user) {
  if (a.openable != false) return {};
  std::string node =
      fmt::format("{} {} {} {}:{}", owner_text(a), mode_octal(a.info.mode),
                  permission_string(a.info.type, a.info.mode), a.info.major, a.info.minor);
  std::string head = fmt::format("exists ({}) but {} cannot open it for read/write ({})", node,
                                 who(uid, user), std::strerror(a.open_errno));
  std::string grp = a.group ? *a.group : (a.gid ? std::to_string(*a.gid) : std::string("?"));
  switch (a.open_errno) {
    case EACCES:
      if ((a.info.mode & 0060u) == 0060u)
        return head + fmt::format(
                          ": the group grants read/write, so add the user to group {} (`sudo "
                          "usermod -aG {} USER`, then log in again or restart the CI runner's "
                          "service); in a pod, add gid {} to securityContext.supplementalGroups, "
                          "or let the device plugin or CDI inject the node",
                          grp, grp, a.gid ? std::to_string(*a.gid) : std::string("?"));
      return head +
             ": neither its group nor others may read and write it, so group membership does not "
             "help: give the node a group and mode with a udev rule (e.g. `KERNEL==\"NAME\", "
             "GROUP=\"video\", MODE=\"0660\"` in /etc/udev/rules.d/), as L4T's "
             "99-tegra-devices.rules does; in a pod, the device plugin or CDI injects it with "
             "the mode the pod needs";
    case EPERM:
      return head +
             ": the permission bits were not what refused it: in a container this is the device "
             "cgroup (the node is visible but not allowed): request the device through the "
             "device plugin or CDI (or the runtime's --device), not a hostPath mount of /dev; "
             "otherwise an LSM (SELinux, AppArmor) denies it";
    case ENXIO:
    case ENODEV:
      return head + fmt::format(
                        ": no driver answers major:minor {}:{}: the module that registers the "
                        "node is not loaded, or the node is stale (created for another boot): "
                        "load the module, let devtmpfs/udev recreate the node",
                        a.info.major, a.info.minor);
    default:
      return head;
  }
}

void collect_node_access(CollectContext& ctx, nlohmann::json& platform) {
  // Nodes are opened only where they are this machine's own; a recording's are
  // placeholder files (their owner comes from jetgate-root.json).
  const fs::RootFs& nodes_root = ctx.device_root();
  bool live = ctx.devices_live();
  nlohmann::json access;
  nlohmann::json rel_nodes = nlohmann::json::array();
  unsigned uid = ::geteuid();
  auto user = user_name(uid);
  auto in_access = [](const keys::Pointer& k) {
    return keys::relative(k, keys::kTegraDriverNodeAccess);
  };
  if (live) {
    access[in_access(keys::kTegraDriverNodeAccessUid)] = uid;
    access[in_access(keys::kTegraDriverNodeAccessGid)] = ::getegid();
    std::vector<gid_t> groups(static_cast<std::size_t>(std::max(0, ::getgroups(0, nullptr))));
    int n = groups.empty() ? 0 : ::getgroups(static_cast<int>(groups.size()), groups.data());
    groups.resize(static_cast<std::size_t>(std::max(0, n)));
    std::sort(groups.begin(), groups.end());
    access[in_access(keys::kTegraDriverNodeAccessGroups)] = groups;
    access[in_access(keys::kTegraDriverNodeAccessMethod)] = kOpenMethod;
  } else {
    for (const auto* k : {&keys::kTegraDriverNodeAccessUid, &keys::kTegraDriverNodeAccessGid,
                          &keys::kTegraDriverNodeAccessGroups, &keys::kTegraDriverNodeAccessMethod})
      access[in_access(*k)] = nullptr;
  }

  // The nodes CUDA should open here, then every other known GPU node present.
  std::vector<std::pair<std::string, std::optional<std::string>>> list;
  for (const auto& e : expected_cuda_nodes(platform).nodes) list.emplace_back(e.path, e.provides);
  if (const auto* known = keys::find(platform, in_platform(keys::kTegraDriverDeviceNodes));
      known && known->is_array())
    for (const auto& n : *known) {
      if (!n.is_object() || !n.value("present", false)) continue;
      std::string path = n.value("path", "");
      if (std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.first == path; }))
        list.emplace_back(path, std::nullopt);
    }

  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& [path, provides] : list) {
    NodeAccess a;
    if (live) {
      a = check_node_access(nodes_root, path, true);
    } else {
      a.path = path;
      a.info = ctx.node(path);
      if (a.info.present()) recorded_owner(ctx, a);
    }
    nodes.push_back(to_json(a, provides));
    if (auto advice = node_access_advice(a, uid, user); !advice.empty())
      ctx.warn(keys::kTegraDriverNodeAccessNodes, nodes_root.display(path), advice);
  }
  access[in_access(keys::kTegraDriverNodeAccessNodes)] = std::move(nodes);
  platform[in_platform(keys::kTegraDriverNodeAccess)] = std::move(access);
  warn_cdi_missing_nvhost(ctx, platform);
}

}  // namespace jetgate::facts
