// SPDX-License-Identifier: Apache-2.0
// /platform/container, /platform/cuda, /platform/nvidia_driver.
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/container_host.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/versions.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::facts {
namespace {

struct ToolkitFound {
  std::optional<std::string> version, source;
};

ToolkitFound cuda_toolkit(CollectContext& ctx) {
  const auto& fact = keys::kCudaToolkitVersion;
  if (auto t = ctx.read("/usr/local/cuda/version.json", fact)) {
    auto v = parse_cuda_version_json(*t);
    if (v.ok()) return {*v, "/usr/local/cuda/version.json"};
    ctx.warn(fact, ctx.root().display("/usr/local/cuda/version.json"), v.error().message());
  }
  if (auto t = ctx.read("/usr/local/cuda/version.txt", fact)) {
    auto v = parse_cuda_version_txt(*t);
    if (v.ok()) return {*v, "/usr/local/cuda/version.txt"};
    ctx.warn(fact, ctx.root().display("/usr/local/cuda/version.txt"), v.error().message());
  }
  if (!ctx.root().is_live() || !ctx.options().run_commands) return {};
  for (std::string nvcc : {"nvcc", "/usr/local/cuda/bin/nvcc"}) {
    proc::ProcessSpec spec{{nvcc, "--version"}, {}, {}, std::nullopt, std::nullopt, std::nullopt};
    proc::ChildLimits limits;
    limits.timeout = std::chrono::milliseconds(10000);
    auto outcome = proc::run_process(spec, limits);
    if (outcome.kind != proc::ChildOutcome::Kind::exited || outcome.exit_code != 0) continue;
    auto v = parse_nvcc_version(outcome.output);
    if (v.ok()) return {*v, nvcc + " --version"};
  }
  return {};
}

}  // namespace

std::optional<std::string> container_sign(CollectContext& ctx) {
  std::optional<std::string> sign;
  if (ctx.root().exists("/.dockerenv"))
    sign = "/.dockerenv exists";
  else if (ctx.root().exists("/run/.containerenv"))
    sign = "/run/.containerenv exists (podman)";
  else {
    for (std::string path : {"/proc/1/cgroup", "/proc/self/cgroup"}) {
      auto text = ctx.read(path, keys::kContainerDetected, std::size_t{256} * 1024);
      if (!text) continue;
      for (std::string word : {"docker", "containerd", "kubepods", "libpod", "lxc"})
        if (text->find(word) != std::string::npos) {
          sign = (path + " mentions ").append(word);
          break;
        }
      if (sign) break;
    }
  }
  return sign;
}

bool devices_in_container(CollectContext& ctx) {
  return ctx.options().own_root != nullptr || container_sign(ctx).has_value();
}

void collect_container(CollectContext& ctx, nlohmann::json& out) {
  auto sign = container_sign(ctx);
  out[in_platform(keys::kContainerDetected)] = sign.has_value();
  out[in_platform(keys::kContainerSign)] = json_or_null(sign);
  if (sign) collect_container_l4t(ctx, out);
}

void collect_host_mount_container(CollectContext& own, CollectContext& host, nlohmann::json& out) {
  // --host-root says it: the host is the mount, this process runs beside it.
  auto sign = container_sign(own);
  out[in_platform(keys::kContainerDetected)] = true;
  out[in_platform(keys::kContainerSign)] =
      sign ? *sign + "; the host is mounted at " + host.root().root() + " (--host-root)"
           : "the host is mounted at " + host.root().root() + " (--host-root)";
  collect_container_l4t_host_mount(own, out);
}

void collect_cuda_stack(CollectContext& ctx, nlohmann::json& out) {
  auto toolkit = cuda_toolkit(ctx);
  out[in_platform(keys::kCudaToolkitVersion)] = json_or_null(toolkit.version);
  out[in_platform(keys::kCudaSource)] = json_or_null(toolkit.source);

  std::optional<std::string> driver;
  if (auto t = ctx.read("/proc/driver/nvidia/version", keys::kNvidiaDriverVersion)) {
    auto v = parse_nvidia_driver_version(*t);
    if (v.ok())
      driver = *v;
    else
      ctx.warn(keys::kNvidiaDriverVersion, ctx.root().display("/proc/driver/nvidia/version"),
               v.error().message());
  }
  out[in_platform(keys::kNvidiaDriverVersion)] = json_or_null(driver);
}

}  // namespace jetgate::facts
