// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/platform_key.hpp"

#include <filesystem>
#include <vector>

#include "jetgate/core/document_keys.hpp"

namespace jetgate::claims {
namespace {

constexpr const char* kNotRecorded = "not recorded";

bool is_jetson(const nlohmann::json& extra) {
  const auto* tegra = keys::find(extra, keys::kIsTegra);
  if (tegra && tegra->is_boolean()) return tegra->get<bool>();
  return !keys::string_at(extra, keys::kL4t).empty();
}

// "NVIDIA H200", "2x NVIDIA H200", "NVIDIA H200 + NVIDIA L40S"
// An ambiguous release has no one JetPack: its candidates, "3.2.1 | 3.3".
std::string jetpack_candidates_text(const nlohmann::json& extra) {
  std::string out;
  if (const auto* list = keys::find(extra, keys::kTegraJetpackCandidates); list && list->is_array())
    for (const auto& j : *list)
      if (j.is_string()) out += (out.empty() ? "" : " | ") + j.get<std::string>();
  return out;
}

std::string gpu_names(const nlohmann::json& extra) {
  const auto* devices = keys::find(extra, keys::kDevices);
  if (!devices || !devices->is_array()) return {};
  std::vector<std::string> names;
  for (const auto& d : *devices)
    if (auto name = keys::string_at(d, keys::kDeviceName); !name.empty()) names.push_back(name);
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
std::string cuda_version(const nlohmann::json& extra) {
  std::string toolkit = keys::string_at(extra, keys::kCudaToolkitVersion);
  if (!toolkit.empty()) return cuda_major_minor(toolkit);
  return cuda_major_minor(keys::string_at(extra, keys::kTorchCudaVersion));
}

// ", torch T" or ", torch T (CUDA X)" when torch was built for another CUDA
// than the toolkit; empty when torch was not recorded.
std::string torch_part(const nlohmann::json& extra, const std::string& cuda) {
  std::string torch = keys::string_at(extra, keys::kTorchVersion);
  if (torch.empty()) return {};
  std::string torch_cuda = cuda_major_minor(keys::string_at(extra, keys::kTorchCudaVersion));
  std::string part = ", torch " + torch;
  if (!torch_cuda.empty() && torch_cuda != cuda) part += " (CUDA " + torch_cuda + ")";
  return part;
}

PlatformKey jetson_key(const nlohmann::json& extra) {
  PlatformKey k;
  std::string module = keys::string_at(extra, keys::kModule);
  std::string model = keys::string_at(extra, keys::kBoardModel);
  std::string part = keys::string_at(extra, keys::kPartNumber);
  std::string soc = keys::string_at(extra, keys::kSoc);
  std::string l4t = keys::string_at(extra, keys::kL4t);
  std::string jetpack = keys::string_at(extra, keys::kJetpack);
  if (jetpack.empty()) jetpack = jetpack_candidates_text(extra);
  std::string cuda = cuda_version(extra);
  if (!module.empty())
    k.platform = module;
  else if (!model.empty())
    k.platform = part.empty() ? model : model + " (" + part + ")";
  else if (!soc.empty())
    k.platform = "Jetson " + soc;
  else
    k.platform = "Jetson, module " + std::string(kNotRecorded);
  k.runtime = "JetPack " + (jetpack.empty() ? std::string("unknown") : jetpack) + " (L4T " +
              (l4t.empty() ? std::string("unknown") : l4t) + "), CUDA " +
              (cuda.empty() ? "unknown" : cuda) + torch_part(extra, cuda);
  k.identified = k.platform.rfind("Jetson, module", 0) != 0 && !l4t.empty();
  if (!k.identified)
    k.missing = "the evidence records neither the Jetson module nor its L4T release";
  k.facts = {{"kind", "jetson"},
             {"module", module},
             {"model", model},
             {"part_number", part},
             {"soc", soc},
             {"l4t", l4t},
             {"jetpack", jetpack},
             {"cuda", cuda},
             {"torch", keys::string_at(extra, keys::kTorchVersion)}};
  return k;
}

PlatformKey host_key(const nlohmann::json& extra) {
  PlatformKey k;
  std::string gpus = gpu_names(extra);
  std::string arch = keys::string_at(extra, keys::kArch);
  std::string driver = keys::string_at(extra, keys::kNvidiaDriverVersion);
  std::string cuda = cuda_version(extra);
  k.platform = (gpus.empty() ? "GPU " + std::string(kNotRecorded) : gpus) +
               (arch.empty() ? "" : " (" + arch + ")");
  k.runtime = "driver " + (driver.empty() ? std::string("unknown") : driver) + ", CUDA " +
              (cuda.empty() ? "unknown" : cuda) + torch_part(extra, cuda);
  k.identified = !gpus.empty() && (!driver.empty() || !cuda.empty());
  if (!k.identified)
    k.missing = "the evidence records no GPU name, or neither driver nor CUDA version";
  k.facts = {{"kind", "host"}, {"gpu", gpus},
             {"arch", arch},   {"driver", driver},
             {"cuda", cuda},   {"torch", keys::string_at(extra, keys::kTorchVersion)}};
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
  const auto& extra = e.extra;
  if (!keys::find(extra, keys::kPlatform) && !keys::find(extra, keys::kGpu)) {
    PlatformKey k;
    k.platform = "platform " + std::string(kNotRecorded);
    k.runtime = kNotRecorded;
    k.missing = "the evidence carries no platform facts (as OBLITERATUS' runner writes it)";
    k.facts = {{"kind", "unrecorded"}};
    return k;
  }
  return is_jetson(extra) ? jetson_key(extra) : host_key(extra);
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
  const std::string node = keys::string_at(extra, keys::kLaneNode);
  std::string kind = keys::string_at(extra, keys::kLaneKind);
  if (kind.empty()) {
    const nlohmann::json* c = keys::find(extra, keys::kContainerDetected);
    kind = c && c->is_boolean() && c->get<bool>() ? "container" : "native";
  }
  if (!node.empty()) return "node " + node + " (" + kind + ")";
  // Without a recorded node, the directory it was read from: each board and
  // lane of a workflow writes its own (jetgate init), and one directory holds
  // one file per gate.
  return "directory " + directory_key(file) + " (" + kind + ")";
}

}  // namespace jetgate::claims
