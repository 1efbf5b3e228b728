// SPDX-License-Identifier: Apache-2.0
#include "jetgate/policy/requirements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "jetgate/policy/policy_parse_detail.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::policy {
namespace {

// A fact as the reasons show it: its text, or "unknown".
std::string shown(const std::optional<std::string>& v) {
  return v ? *v : record::kUnknown;
}
template <class T>
std::string shown(const std::optional<T>& v) {
  return v ? nlohmann::json(*v).dump() : record::kUnknown;
}

RequirementOutcome arch_outcome(const std::vector<std::string>& arch, const record::Platform& p) {
  bool met = p.arch && std::find(arch.begin(), arch.end(), *p.arch) != arch.end();
  return {fmt::format("arch in [{}]", fmt::join(arch, ", ")), met, "arch is " + shown(p.arch)};
}

RequirementOutcome tegra_outcome(bool want, const record::Platform& p) {
  bool met = p.tegra.is_tegra == want;
  return {fmt::format("is_tegra = {}", want), met, "is_tegra is " + shown(p.tegra.is_tegra)};
}

bool in_range(const std::string& version, const VersionRange& range) {
  bool met = true;
  if (range.min) {
    auto c = compare_version_prefix(version, *range.min);
    met = met && c && *c >= 0;
  }
  if (range.max) {
    auto c = compare_version_prefix(version, *range.max);
    met = met && c && *c <= 0;
  }
  return met;
}

std::string range_label(const char* what, const VersionRange& range) {
  std::string label = what;
  if (range.min) label += " >= " + *range.min;
  if (range.max) label += (range.min ? " and <= " : " <= ") + *range.max;
  return label;
}

RequirementOutcome l4t_outcome(const VersionRange& range, const record::Platform& p) {
  std::string label = range_label("an L4T release", range);
  if (!p.tegra.l4t.version) return {label, false, "no L4T release detected"};
  const std::string& v = *p.tegra.l4t.version;
  return {label, in_range(v, range), "L4T is " + v};
}

// "6.0 DP" -> "6.0": a preview is compared by its version; the label keeps the kind.
std::string leading_version(const std::string& jetpack) {
  return jetpack.substr(0, jetpack.find(' '));
}

// A release that shipped in two JetPacks meets the range when either does.
RequirementOutcome jetpack_outcome(const VersionRange& range, const record::Platform& p) {
  std::string label = range_label("a JetPack", range);
  std::vector<std::string> versions = p.tegra.jetpack_versions.value_or(std::vector<std::string>{});
  if (versions.empty() && p.tegra.jetpack) versions.push_back(*p.tegra.jetpack);
  if (versions.empty()) return {label, false, "no JetPack known for this L4T release"};
  bool met = std::any_of(versions.begin(), versions.end(),
                         [&](const std::string& v) { return in_range(leading_version(v), range); });
  return {label, met, fmt::format("JetPack is {}", fmt::join(versions, " or "))};
}

// Module names and part numbers are matched without regard to case: "p3701-0005" = "P3701-0005".
bool same_text(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

RequirementOutcome any_of_outcome(const char* what, const std::vector<std::string>& wanted,
                                  const std::vector<std::optional<std::string>>& facts,
                                  const std::string& found) {
  bool met = false;
  for (const auto& f : facts)
    if (f)
      for (const auto& w : wanted) met = met || same_text(*f, w);
  return {fmt::format("{} in [{}]", what, fmt::join(wanted, ", ")), met, found};
}

RequirementOutcome module_outcome(const std::vector<std::string>& wanted,
                                  const record::Platform& p) {
  const auto& name = p.tegra.module;
  const auto& part = p.tegra.part_number;
  return any_of_outcome("module", wanted, {name, part},
                        fmt::format("module is {} (part number {})", shown(name), shown(part)));
}

RequirementOutcome soc_outcome(const std::vector<std::string>& wanted, const record::Platform& p) {
  return any_of_outcome("soc", wanted, {p.tegra.soc}, "SoC is " + shown(p.tegra.soc));
}

RequirementOutcome power_mode_outcome(const std::vector<std::string>& wanted,
                                      const record::Platform& p) {
  const auto& name = p.nvpmodel.mode_name;
  const auto& id = p.nvpmodel.mode_id;
  std::optional<std::string> id_text;
  if (id) id_text = std::to_string(*id);
  return any_of_outcome("power_mode", wanted, {name, id_text},
                        fmt::format("nvpmodel mode is {} (id {})", shown(name), shown(id)));
}

RequirementOutcome cuda_outcome(const record::Gpu& gpu) {
  if (gpu.driver_loaded != true)
    return {"a CUDA driver and device", false,
            "no CUDA driver" + (gpu.driver_error ? ": " + *gpu.driver_error : std::string())};
  bool met = gpu.device_count && *gpu.device_count > 0;
  return {"a CUDA driver and device", met, "CUDA devices: " + shown(gpu.device_count)};
}

RequirementOutcome driver_outcome(const std::string& min, const record::Gpu& gpu) {
  std::optional<int> c;
  if (gpu.driver_version) c = compare_version_prefix(*gpu.driver_version, min);
  return {"CUDA driver >= " + min, c && *c >= 0,
          "CUDA driver version is " + shown(gpu.driver_version)};
}

RequirementOutcome memory_outcome(std::int64_t min, const record::Gpu& gpu) {
  std::int64_t best = -1;
  for (const auto& d : gpu.devices)
    if (d.total_memory_bytes) best = std::max(best, *d.total_memory_bytes);
  std::string why =
      best < 0 ? "device memory unknown" : fmt::format("largest device has {} bytes", best);
  return {fmt::format("device memory >= {} bytes", min), best >= min, why};
}

}  // namespace

std::optional<int> compare_version_prefix(const std::string& version, const std::string& bound) {
  auto v = detail::parse_version(version), b = detail::parse_version(bound);
  if (!v || !b) return std::nullopt;
  for (std::size_t i = 0; i < b->size(); ++i) {
    long vi = i < v->size() ? (*v)[i] : 0;
    if (vi != (*b)[i]) return vi < (*b)[i] ? -1 : 1;
  }
  return 0;
}

std::vector<RequirementOutcome> evaluate_requirements(const Requirements& r,
                                                      const nlohmann::json& platform,
                                                      const nlohmann::json& gpu) {
  if (!r.any()) return {};  // nothing to read (a fleet's files are judged by the hundred thousand)
  return evaluate_requirements(r, record::read_facts(&platform, &gpu));
}

std::vector<RequirementOutcome> evaluate_requirements(const Requirements& r,
                                                      const record::Record& facts) {
  const record::Platform& platform = facts.platform;
  const record::Gpu& gpu = facts.gpu;
  std::vector<RequirementOutcome> out;
  if (!r.arch.empty()) out.push_back(arch_outcome(r.arch, platform));
  if (r.is_tegra) out.push_back(tegra_outcome(*r.is_tegra, platform));
  if (r.l4t) out.push_back(l4t_outcome(*r.l4t, platform));
  if (r.jetpack) out.push_back(jetpack_outcome(*r.jetpack, platform));
  if (!r.module.empty()) out.push_back(module_outcome(r.module, platform));
  if (!r.soc.empty()) out.push_back(soc_outcome(r.soc, platform));
  if (!r.power_mode.empty()) out.push_back(power_mode_outcome(r.power_mode, platform));
  if (r.cuda) out.push_back(cuda_outcome(gpu));
  if (r.min_cuda_driver) out.push_back(driver_outcome(*r.min_cuda_driver, gpu));
  if (r.min_memory_bytes) out.push_back(memory_outcome(*r.min_memory_bytes, gpu));
  return out;
}

bool all_met(const std::vector<RequirementOutcome>& outcomes) {
  return std::all_of(outcomes.begin(), outcomes.end(), [](const auto& o) { return o.met; });
}

nlohmann::json to_json(const std::vector<RequirementOutcome>& outcomes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : outcomes)
    out.push_back({{"requirement", o.requirement}, {"met", o.met}, {"why", o.why}});
  return out;
}

Requirements platform_part(const Requirements& r) {
  Requirements p;
  p.arch = r.arch;
  p.is_tegra = r.is_tegra;
  p.l4t = r.l4t;
  p.jetpack = r.jetpack;
  p.module = r.module;
  p.soc = r.soc;
  p.power_mode = r.power_mode;
  return p;
}

Requirements gpu_part(const Requirements& r) {
  Requirements g;
  g.cuda = r.cuda;
  g.min_cuda_driver = r.min_cuda_driver;
  g.min_memory_bytes = r.min_memory_bytes;
  return g;
}

}  // namespace jetgate::policy
