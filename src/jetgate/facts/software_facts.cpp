// /platform/container, /platform/cuda, /platform/nvidia_driver, /platform/libraries.
#include <array>

#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/versions.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::facts {
namespace {

constexpr std::array<const char*, 6> kLibraryDirs{
    "/usr/lib/aarch64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64",
    "/usr/lib64", "/usr/lib", "/usr/local/cuda/targets/aarch64-linux/lib"};

struct Found {
  std::optional<std::string> version, source;
};

Found version_from_headers(CollectContext& ctx, const std::string& fact,
                           const std::vector<std::string>& headers, std::string_view major,
                           std::string_view minor, std::string_view patch) {
  for (const auto& h : headers) {
    auto text = ctx.read(h, fact);
    if (!text) continue;
    auto v = version_from_defines(parse_header_defines(*text), major, minor, patch);
    if (v) return {v, h};
    ctx.warn(fact, ctx.root().display(h), std::string("no ") + std::string(major) + "/" +
                                             std::string(minor) + "/" + std::string(patch) + " defines");
  }
  return {};
}

Found version_from_libraries(CollectContext& ctx, std::string_view stem) {
  Found best;
  for (const char* dir : kLibraryDirs) {
    auto names = ctx.root().list(dir);
    if (!names.ok()) continue;
    for (const auto& n : *names) {
      auto v = version_from_library_name(n, stem);
      if (v && (!best.version || compare_versions(*v, *best.version) > 0)) {
        best.version = v;
        best.source = std::string(dir) + "/" + n;
      }
    }
  }
  return best;
}

std::vector<std::string> header_candidates(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  // Name first: cudnn.h of cuDNN 8+ holds no version defines, so it is only
  // a last resort after every directory was searched for the version header.
  for (const auto& n : names)
    for (const char* dir : {"/usr/include", "/usr/include/aarch64-linux-gnu",
                            "/usr/include/x86_64-linux-gnu", "/usr/local/cuda/include"})
      out.push_back(std::string(dir) + "/" + n);
  return out;
}

Found cuda_toolkit(CollectContext& ctx) {
  const std::string fact = "/platform/cuda/toolkit_version";
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
    proc::ProcessSpec spec{{nvcc, "--version"}, {}, {}, std::nullopt, std::nullopt};
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

void collect_container(CollectContext& ctx, nlohmann::json& out) {
  std::optional<std::string> sign;
  if (ctx.root().exists("/.dockerenv")) sign = "/.dockerenv exists";
  else if (ctx.root().exists("/run/.containerenv")) sign = "/run/.containerenv exists (podman)";
  else {
    for (std::string path : {"/proc/1/cgroup", "/proc/self/cgroup"}) {
      auto text = ctx.read(path, "/platform/container/detected", 256 * 1024);
      if (!text) continue;
      for (std::string word : {"docker", "containerd", "kubepods", "libpod", "lxc"})
        if (text->find(word) != std::string::npos) {
          sign = path + " mentions " + word;
          break;
        }
      if (sign) break;
    }
  }
  out["container"] = {{"detected", sign.has_value()}, {"sign", json_or_null(sign)}};
}

void collect_cuda_stack(CollectContext& ctx, nlohmann::json& out) {
  auto toolkit = cuda_toolkit(ctx);
  out["cuda"] = {{"toolkit_version", json_or_null(toolkit.version)}, {"source", json_or_null(toolkit.source)}};

  std::optional<std::string> driver;
  if (auto t = ctx.read("/proc/driver/nvidia/version", "/platform/nvidia_driver/version")) {
    auto v = parse_nvidia_driver_version(*t);
    if (v.ok()) driver = *v;
    else ctx.warn("/platform/nvidia_driver/version", ctx.root().display("/proc/driver/nvidia/version"), v.error().message());
  }
  out["nvidia_driver"] = {{"version", json_or_null(driver)}};

  auto cudnn = version_from_headers(
      ctx, "/platform/libraries/cudnn",
      header_candidates({"cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"}),
      "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL");
  if (!cudnn.version) cudnn = version_from_libraries(ctx, "libcudnn.so.");
  auto trt = version_from_headers(ctx, "/platform/libraries/tensorrt",
                                  header_candidates({"NvInferVersion.h"}), "NV_TENSORRT_MAJOR",
                                  "NV_TENSORRT_MINOR", "NV_TENSORRT_PATCH");
  if (!trt.version) trt = version_from_libraries(ctx, "libnvinfer.so.");
  out["libraries"] = {{"cudnn", json_or_null(cudnn.version)},
                      {"tensorrt", json_or_null(trt.version)},
                      {"sources", {{"cudnn", json_or_null(cudnn.source)}, {"tensorrt", json_or_null(trt.source)}}}};
}

}  // namespace jetgate::facts
