// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/platform.hpp"

#include <sys/utsname.h>

#include <charconv>

#include "jetgate/core/utf8.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/os_release.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/utf8_guard.hpp"

namespace jetgate::facts {
namespace {

std::optional<std::string> normalize_arch(std::string m) {
  if (m == "arm64") return "aarch64";
  if (m == "amd64") return "x86_64";
  if (m.empty() || m.size() > 32 || !is_printable_text(m)) return std::nullopt;
  return m;
}

std::optional<std::string> machine_arch(CollectContext& ctx) {
  // A container shares the host's kernel: uname is the host's machine under --host-root too.
  if (ctx.facts_live()) {
    utsname u{};
    if (::uname(&u) == 0) return normalize_arch(u.machine);
    ctx.warn(keys::kArch, "uname()", "uname failed");
    return std::nullopt;
  }
  const auto& side = ctx.sidecar();
  if (side.contains("machine") && side["machine"].is_string())
    if (auto a = normalize_arch(side["machine"].get<std::string>())) return a;
  ctx.warn(keys::kArch, ctx.root().display("/jetgate-root.json"),
           "a recorded root keeps the machine architecture in jetgate-root.json as "
           "{\"machine\": \"aarch64\"}; add it (scripts/jetgate-record-root.sh writes it)");
  return std::nullopt;
}

std::optional<long long> mem_total_bytes(CollectContext& ctx) {
  auto text = ctx.read("/proc/meminfo", keys::kMemoryTotalBytes);
  if (!text) return std::nullopt;
  for (auto line : split_lines(*text)) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    auto v = trim(line.substr(9));
    long long kb = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), kb);
    if (ec == std::errc() && kb > 0 && trim(std::string_view(p, v.data() + v.size() - p)) == "kB")
      return kb * 1024;
  }
  ctx.warn(keys::kMemoryTotalBytes, ctx.root().display("/proc/meminfo"),
           "no \"MemTotal: <n> kB\" line");
  return std::nullopt;
}

// Bytes that are not UTF-8 (a hostile /proc/modules, a dpkg version, a CDI
// file name, the root path) become U+FFFD, and a warning says where.
void keep_valid_utf8(PlatformReport& report, nlohmann::json& platform) {
  for (const auto& at : replace_invalid_utf8(platform, keys::kPlatform.to_string()))
    report.warnings.push_back(Warning{
        at, "the value at " + at, "held bytes that are not UTF-8; they were replaced with U+FFFD"});
  for (std::size_t i = 0; i < report.warnings.size(); ++i) {
    auto& w = report.warnings[i];
    bool changed = false;
    for (auto* field : {&w.fact, &w.source, &w.message})
      if (!is_valid_utf8(*field)) {
        *field = to_valid_utf8(*field);
        changed = true;
      }
    if (changed)
      w.message += " (bytes that are not UTF-8 in this warning were replaced with U+FFFD)";
  }
}

}  // namespace

void collect_host(CollectContext& ctx, nlohmann::json& out) {
  out[in_platform(keys::kArch)] = json_or_null(machine_arch(ctx));

  std::optional<std::string> release;
  if (auto t = ctx.read("/proc/sys/kernel/osrelease", keys::kKernelRelease)) {
    release = fact_text(*t, 128);
    if (!release)
      ctx.warn(keys::kKernelRelease, ctx.root().display("/proc/sys/kernel/osrelease"),
               "not a kernel release string");
  } else if (ctx.facts_live()) {
    utsname u{};
    if (::uname(&u) == 0) release = u.release;
  }
  out[in_platform(keys::kKernelRelease)] = json_or_null(release);

  for (const auto* key :
       {&keys::kOsId, &keys::kOsVersionId, &keys::kOsPrettyName, &keys::kOsVersionCodename})
    out[in_platform(*key)] = nullptr;
  auto text = ctx.read("/etc/os-release", keys::kOsId);
  if (!text) text = ctx.read("/usr/lib/os-release", keys::kOsId);
  // os-release(5): /etc/os-release is usually a link to ../usr/lib/os-release. A pod that
  // mounts the host's /etc alone sees the link and not its target: say so, not "unknown".
  if (!text && ctx.root().is_link("/etc/os-release"))
    ctx.warn(keys::kOsId, ctx.root().display("/etc/os-release"),
             "a symbolic link whose target (usually /usr/lib/os-release) is not there: the "
             "host's OS is not known; mount the host's /usr/lib/os-release (or its whole /) "
             "read-only where the pod reads the host");
  if (text) {
    auto kv = parse_os_release(*text);
    for (auto [name, key] : {std::pair{"ID", &keys::kOsId},
                             {"VERSION_ID", &keys::kOsVersionId},
                             {"PRETTY_NAME", &keys::kOsPrettyName},
                             {"VERSION_CODENAME", &keys::kOsVersionCodename}})
      if (auto it = kv.find(name); it != kv.end() && !it->second.empty())
        out[in_platform(*key)] = it->second;
  }

  auto mem = mem_total_bytes(ctx);
  out[in_platform(keys::kMemoryTotalBytes)] = mem ? nlohmann::json(*mem) : nlohmann::json(nullptr);

  if (ctx.options().show_serial) {
    std::optional<std::string> host;
    if (auto h = ctx.read("/proc/sys/kernel/hostname", keys::kHostname)) host = fact_text(*h);
    if (!host)
      if (auto e = ctx.read("/etc/hostname", keys::kHostname)) host = fact_text(*e);
    out[in_platform(keys::kHostname)] = json_or_null(host);
  }
}

PlatformReport collect_platform(const fs::RootFs& root, const CollectOptions& options) {
  PlatformReport report;
  // Under --host-root the device nodes are this process's own, real ones.
  CollectContext ctx(root, options, report.warnings,
                     options.own_root ? DeviceNodes{options.own_root, true} : DeviceNodes{});
  if (!ctx.facts_live() && !root.exists("/jetgate-root.json") && !root.exists("/etc") &&
      !root.exists("/proc") && !root.exists("/sys"))
    ctx.warn(keys::kPlatform, root.display("/"),
             "holds none of /etc, /proc, /sys or jetgate-root.json: is this a recorded machine? "
             "(scripts/jetgate-record-root.sh makes one)");
  nlohmann::json p = nlohmann::json::object();
  collect_host(ctx, p);
  collect_tegra(ctx, p);
  collect_power(ctx, p);
  if (options.own_root) {
    // The container's side: its image's toolkit, libraries and L4T packages.
    CollectOptions own_options = options;
    own_options.own_root = nullptr;
    CollectContext own(*options.own_root, own_options, report.warnings);
    collect_host_mount_container(own, ctx, p);
    collect_cuda_stack(own, p);
    collect_libraries(own, p);
  } else {
    collect_container(ctx, p);
    collect_cuda_stack(ctx, p);
    collect_libraries(ctx, p);
  }
  keep_valid_utf8(report, p);
  report.platform = std::move(p);
  report.root = to_valid_utf8(root.root());
  return report;
}

}  // namespace jetgate::facts
