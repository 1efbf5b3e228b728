// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/platform_key.hpp"

#include <filesystem>
#include <vector>

#include "jetgate/record/codec.hpp"

namespace jetgate::claims {
namespace {

constexpr const char* kNotRecorded = "not recorded";

const std::string& text(const std::optional<std::string>& v) {
  static const std::string none;
  return v ? *v : none;
}

bool is_jetson(const record::Record& r) {
  if (r.platform.tegra.is_tegra) return *r.platform.tegra.is_tegra;
  return r.platform.tegra.l4t.known();
}

// An ambiguous release has no one JetPack: its candidates, "3.2.1 | 3.3".
std::string jetpack_candidates_text(const record::Record& r) {
  std::string out;
  if (r.platform.tegra.jetpack_candidates)
    for (const auto& j : *r.platform.tegra.jetpack_candidates)
      out += (out.empty() ? "" : " | ") + j;
  return out;
}

// "NVIDIA H200", "2x NVIDIA H200", "NVIDIA H200 + NVIDIA L40S"
std::string gpu_names(const record::Record& r) {
  std::vector<std::string> names;
  for (const auto& d : r.gpu.devices)
    if (d.name && !d.name->empty()) names.push_back(*d.name);
  if (names.empty()) return {};
  bool all_same = true;
  for (const auto& n : names) all_same = all_same && n == names.front();
  if (all_same)
    return names.size() == 1 ? names.front() : std::to_string(names.size()) + "x " + names.front();
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : " + ") + n;
  return joined;
}

// Toolkit first (what the gate was built against), then torch's CUDA.
std::string cuda_version(const record::Record& r) {
  const std::string& toolkit = text(r.platform.cuda_toolkit_version);
  if (!toolkit.empty()) return cuda_major_minor(toolkit);
  return cuda_major_minor(text(r.python.torch_cuda_version));
}

// ", torch T" or ", torch T (CUDA X)" when torch was built for another CUDA
// than the toolkit; empty when torch was not recorded.
std::string torch_part(const record::Record& r, const std::string& cuda) {
  const std::string& torch = text(r.python.torch_version);
  if (torch.empty()) return {};
  std::string torch_cuda = cuda_major_minor(text(r.python.torch_cuda_version));
  std::string part = ", torch " + torch;
  if (!torch_cuda.empty() && torch_cuda != cuda) part += " (CUDA " + torch_cuda + ")";
  return part;
}

PlatformKey jetson_key(const record::Record& r) {
  PlatformKey k;
  const auto& t = r.platform.tegra;
  std::string module = text(t.module);
  std::string model = text(t.model);
  std::string part = text(t.part_number);
  std::string soc = text(t.soc);
  std::string l4t = text(t.l4t.version);
  std::string jetpack = text(t.jetpack);
  if (jetpack.empty()) jetpack = jetpack_candidates_text(r);
  std::string cuda = cuda_version(r);
  if (!module.empty())
    k.platform = module;
  else if (!model.empty())
    k.platform = part.empty() ? model : model + " (" + part + ")";
  else if (!soc.empty())
    k.platform = "Jetson " + soc;
  else
    k.platform = "Jetson, module " + std::string(kNotRecorded);
  k.runtime = "JetPack " + (jetpack.empty() ? std::string(record::kUnknown) : jetpack) + " (L4T " +
              t.l4t.text() + "), CUDA " + (cuda.empty() ? record::kUnknown : cuda) +
              torch_part(r, cuda);
  k.identified = k.platform.rfind("Jetson, module", 0) != 0 && !l4t.empty();
  if (!k.identified)
    k.missing = "the evidence records neither the Jetson module nor its L4T release";
  k.facts = {{"kind", "jetson"},    {"module", module}, {"model", model},
             {"part_number", part}, {"soc", soc},       {"l4t", l4t},
             {"jetpack", jetpack},  {"cuda", cuda},     {"torch", text(r.python.torch_version)}};
  return k;
}

PlatformKey host_key(const record::Record& r) {
  PlatformKey k;
  std::string gpus = gpu_names(r);
  std::string arch = text(r.platform.arch);
  std::string driver = text(r.platform.nvidia_driver_version);
  std::string cuda = cuda_version(r);
  k.platform = (gpus.empty() ? "GPU " + std::string(kNotRecorded) : gpus) +
               (arch.empty() ? "" : " (" + arch + ")");
  k.runtime = "driver " + (driver.empty() ? std::string(record::kUnknown) : driver) + ", CUDA " +
              (cuda.empty() ? record::kUnknown : cuda) + torch_part(r, cuda);
  k.identified = !gpus.empty() && (!driver.empty() || !cuda.empty());
  if (!k.identified)
    k.missing = "the evidence records no GPU name, or neither driver nor CUDA version";
  k.facts = {{"kind", "host"},   {"gpu", gpus},  {"arch", arch},
             {"driver", driver}, {"cuda", cuda}, {"torch", text(r.python.torch_version)}};
  return k;
}

}  // namespace

std::string cuda_major_minor(const std::string& version) {
  auto first = version.find('.');
  if (first == std::string::npos) return version;
  auto second = version.find('.', first + 1);
  return second == std::string::npos ? version : version.substr(0, second);
}

// Reads only the members kPlatformKeyReads names (the loader relies on it).
PlatformKey platform_key(const evidence::Evidence& e) {
  return platform_key(record::read(e.extra, record::Keep::known));
}

PlatformKey platform_key(const record::Record& r) {
  if (!r.has_platform && !r.has_gpu) {
    PlatformKey k;
    k.platform = "platform " + std::string(kNotRecorded);
    k.runtime = kNotRecorded;
    k.missing = "the evidence carries no platform facts (as OBLITERATUS' runner writes it)";
    k.facts = {{"kind", "unrecorded"}};
    return k;
  }
  return is_jetson(r) ? jetson_key(r) : host_key(r);
}

namespace {

// A path's segments are all plain names: lexically_normal would change nothing.
bool plain_path(std::string_view dir) {
  if (dir.empty() || dir.find("//") != std::string_view::npos) return false;
  std::size_t start = dir.front() == '/' ? 1 : 0;
  while (start <= dir.size()) {
    std::size_t end = dir.find('/', start);
    if (end == std::string_view::npos) end = dir.size();
    std::string_view segment = dir.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string normal_directory(std::string_view dir) {
  // The common case without std::filesystem's allocations (a fleet's files are
  // judged by the hundred thousand); the same string it would give.
  if (plain_path(dir)) return std::string(dir);
  std::string out = std::filesystem::path(dir).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out.empty() ? std::string(".") : out;
}

std::string directory_key(const std::string& file) {
  auto slash = file.rfind('/');
  if (slash == std::string::npos) return ".";
  return normal_directory(std::string_view(file).substr(0, slash == 0 ? 1 : slash));
}

std::string lane_of(const std::string& file, const nlohmann::json& extra) {
  return lane_of(file, record::read_lane(extra));
}

std::string lane_of(const std::string& file, const record::Record& r) {
  const std::string& node = text(r.head.lane_node);
  std::string kind = text(r.head.lane_kind);
  if (kind.empty()) kind = r.platform.container_detected == true ? "container" : "native";
  if (!node.empty()) return "node " + node + " (" + kind + ")";
  // Without a recorded node, the directory it was read from: each board and
  // lane of a workflow writes its own (jetgate init), and one directory holds
  // one file per gate.
  return "directory " + directory_key(file) + " (" + kind + ")";
}

}  // namespace jetgate::claims
