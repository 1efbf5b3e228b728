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
#include "jetgate/facts/container_injection.hpp"
#include "jetgate/facts/cuda_nodes.hpp"
#include "jetgate/facts/gpu_stack.hpp"

namespace jetgate::facts {
namespace {

constexpr const char* kOpenMethod = "open(O_RDWR|O_NONBLOCK|O_NOCTTY|O_CLOEXEC), then close";

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

// The table row's entry for a device path (whole match, or a digits pattern).
const StackNode* stack_node(const GpuStack* stack, const std::string& path) {
  if (stack == nullptr) return nullptr;
  for (const auto& n : stack->nodes)  // a pattern no present node matched stands for itself
    if (n.path == path || node_path_matches(n.path, path)) return &n;
  return nullptr;
}

// What to do about a node this stack needs that is absent: its module, loaded or not.
std::string module_advice(const nlohmann::json& platform, const StackNode* node) {
  if (node == nullptr || !node->module)
    return "the sources name no module for it; check the kernel log for the GPU driver";
  const std::string& m = *node->module;
  bool loaded = false;
  if (const auto* mods = keys::find(platform, in_platform(keys::kTegraDriverModules));
      mods && mods->is_array())
    for (const auto& e : *mods)
      if (e.is_object() && e.value("name", "") == m) loaded = true;
  if (loaded)
    return fmt::format(
        "{} creates it and is loaded, yet the node is absent: check in the kernel log that it "
        "bound to its device, and that devtmpfs/udev created the node",
        m);
  return fmt::format(
      "{} creates it and is not loaded: load it (`modprobe {}`; "
      "/platform/tegra/driver/expected_modules says why it is not)",
      m, m);
}

// Each node this stack's CUDA opens that is absent: what it is for, per the
// table, and what creates it. No prediction of speed: the probes measure that.
void warn_missing_cuda_nodes(CollectContext& ctx, const nlohmann::json& platform,
                             const GpuStack* stack, const nlohmann::json& nodes) {
  if (stack == nullptr) return;
  std::optional<bool> contained;  // asked once, when a node is missing
  for (const auto& n : nodes) {
    if (!n.is_object() || n.value("present", true) || !n.value("expected", false)) continue;
    std::string path = n.value("path", "");
    const StackNode* sn = stack_node(stack, path);
    if (!contained) contained = devices_in_container(ctx);
    // In a container the node is the runtime's to inject; the module is the host's.
    const std::string advice = *contained
                                   ? fmt::format("{}; on the host: {}", kContainerGpuInjection,
                                                 module_advice(platform, sn))
                                   : module_advice(platform, sn);
    ctx.warn(
        keys::kTegraDriverNodeAccessNodes, path,
        fmt::format("{} is missing: on {} CUDA opens it ({}); {}. Source: {}", path, stack->name,
                    sn ? sn->provides : n.value("provides", ""), advice, stack->source));
  }
}

// Every deviceNode of a CDI spec that is absent on this host.
void warn_cdi_missing_nodes(CollectContext& ctx, const nlohmann::json& platform,
                            const GpuStack* stack) {
  const auto* specs = keys::find(platform, in_platform(keys::kTegraDriverCdi));
  if (!specs || !specs->is_array()) return;
  constexpr std::size_t kMaxWarningsPerSpec = 16;
  for (const auto& spec : *specs) {
    if (!spec.is_object() || !spec.contains("device_nodes") || !spec["device_nodes"].is_array())
      continue;
    std::string where = ctx.root().display(spec.value("path", ""));
    std::size_t warned = 0, absent = 0;
    for (const auto& n : spec["device_nodes"]) {
      if (!n.is_object() || n.value("present", true)) continue;
      ++absent;
      if (warned >= kMaxWarningsPerSpec) continue;
      ++warned;
      std::string host = n.value("host_path", "");
      const StackNode* sn = stack_node(stack, host);
      std::string about;
      if (stack != nullptr && sn == nullptr)
        about = fmt::format(
            " NVIDIA's list for {} does not name it, so the spec was not made "
            "for this stack.",
            stack->name);
      else if (sn != nullptr)
        about = fmt::format(" On {} it is {}; {}.", stack->name, sn->provides,
                            module_advice(platform, sn));
      if (n.value("fully_specified", false)) {
        ctx.warn(keys::kTegraDriverCdi, where,
                 fmt::format("the CDI spec names {}, which does not exist on this machine; the "
                             "spec gives its type and major, so the runtime creates the node in "
                             "the container without stat'ing the host, but no driver on this "
                             "host answers it.{}",
                             host, about));
        continue;
      }
      ctx.warn(keys::kTegraDriverCdi, where,
               fmt::format("the CDI spec names {}, which does not exist on this machine: a "
                           "container that requests a device of this spec will not start (the "
                           "runtime fails with 'failed to stat CDI host device \"{}\": no "
                           "such file or directory', github.com/cncf-tags/"
                           "container-device-interface, fillMissingInfo).{} Fix: regenerate the "
                           "spec on this machine so it names only nodes that exist (`sudo "
                           "nvidia-ctk cdi generate --mode=csv --output={}` on a Jetson), or "
                           "create the node by loading its driver",
                           host, host, about, spec.value("path", "")));
    }
    if (absent > warned)
      ctx.warn(keys::kTegraDriverCdi, where,
               fmt::format("{} more absent device nodes in this spec are not listed one by one",
                           absent - warned));
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

  // The nodes CUDA should open here (a render-node pattern stands for the first
  // render node present), then every other known GPU node present.
  std::vector<std::string> present_nodes;
  if (const auto* known = keys::find(platform, in_platform(keys::kTegraDriverDeviceNodes));
      known && known->is_array())
    for (const auto& n : *known)
      if (n.is_object() && n.value("present", false)) present_nodes.push_back(n.value("path", ""));
  std::vector<std::pair<std::string, std::optional<std::string>>> list;
  for (const auto& e : expected_cuda_nodes(platform).nodes) {
    std::string path = e.path;
    for (const auto& p : present_nodes)
      if (node_path_matches(e.path, p)) {
        path = p;
        break;
      }
    list.emplace_back(path, e.provides);
  }
  for (const auto& path : present_nodes)
    if (std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.first == path; }))
      list.emplace_back(path, std::nullopt);

  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& [path, provides] : list) {
    NodeAccess a;
    if (path.back() == '*') {
      a.path = path;  // a pattern no present node matched: missing
    } else if (live) {
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
  const GpuStack* stack = select_gpu_stack(platform);
  warn_missing_cuda_nodes(ctx, platform, stack, nodes);
  access[in_access(keys::kTegraDriverNodeAccessNodes)] = std::move(nodes);
  platform[in_platform(keys::kTegraDriverNodeAccess)] = std::move(access);
  warn_cdi_missing_nodes(ctx, platform, stack);
}

}  // namespace jetgate::facts
