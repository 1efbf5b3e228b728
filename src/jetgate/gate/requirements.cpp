#include "jetgate/gate/requirements.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "jetgate/gate/policy_parse_detail.hpp"

namespace jetgate::gate {
namespace {

const nlohmann::json* at(const nlohmann::json& j, const char* pointer) {
  nlohmann::json::json_pointer p(pointer);
  if (!j.is_object() || !j.contains(p)) return nullptr;
  const auto& v = j.at(p);
  return v.is_null() ? nullptr : &v;
}

std::string shown(const nlohmann::json* v) {
  if (!v) return "unknown";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

RequirementOutcome arch_outcome(const std::vector<std::string>& arch, const nlohmann::json& platform) {
  const auto* a = at(platform, "/arch");
  bool met = a && a->is_string() &&
             std::find(arch.begin(), arch.end(), a->get<std::string>()) != arch.end();
  return {fmt::format("arch in [{}]", fmt::join(arch, ", ")), met, "arch is " + shown(a)};
}

RequirementOutcome tegra_outcome(bool want, const nlohmann::json& platform) {
  const auto* t = at(platform, "/tegra/is_tegra");
  bool met = t && t->is_boolean() && t->get<bool>() == want;
  return {fmt::format("is_tegra = {}", want), met, "is_tegra is " + shown(t)};
}

RequirementOutcome l4t_outcome(const VersionRange& range, const nlohmann::json& platform) {
  const auto* l = at(platform, "/tegra/l4t");
  std::string label = "an L4T release";
  if (range.min) label += " >= " + *range.min;
  if (range.max) label += (range.min ? " and <= " : " <= ") + *range.max;
  if (!l || !l->is_string()) return {label, false, "no L4T release detected"};
  std::string v = l->get<std::string>();
  bool met = true;
  if (range.min) {
    auto c = compare_version_prefix(v, *range.min);
    met = met && c && *c >= 0;
  }
  if (range.max) {
    auto c = compare_version_prefix(v, *range.max);
    met = met && c && *c <= 0;
  }
  return {label, met, "L4T is " + v};
}

RequirementOutcome cuda_outcome(const nlohmann::json& gpu) {
  const auto* loaded = at(gpu, "/driver/loaded");
  const auto* count = at(gpu, "/device_count");
  const auto* error = at(gpu, "/driver/error");
  if (!loaded || !loaded->is_boolean() || !loaded->get<bool>())
    return {"a CUDA driver and device", false,
            "no CUDA driver" + (error ? ": " + shown(error) : std::string())};
  bool met = count && count->is_number_integer() && count->get<std::int64_t>() > 0;
  return {"a CUDA driver and device", met, "CUDA devices: " + shown(count)};
}

RequirementOutcome driver_outcome(const std::string& min, const nlohmann::json& gpu) {
  const auto* v = at(gpu, "/driver/version");
  std::optional<int> c;
  if (v && v->is_string()) c = compare_version_prefix(v->get<std::string>(), min);
  return {"CUDA driver >= " + min, c && *c >= 0, "CUDA driver version is " + shown(v)};
}

RequirementOutcome memory_outcome(std::int64_t min, const nlohmann::json& gpu) {
  std::int64_t best = -1;
  if (const auto* devs = at(gpu, "/devices"); devs && devs->is_array())
    for (const auto& d : *devs)
      if (d.is_object() && d.contains("total_memory_bytes") && d["total_memory_bytes"].is_number_integer())
        best = std::max(best, d["total_memory_bytes"].get<std::int64_t>());
  std::string why = best < 0 ? "device memory unknown" : fmt::format("largest device has {} bytes", best);
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
  std::vector<RequirementOutcome> out;
  if (!r.arch.empty()) out.push_back(arch_outcome(r.arch, platform));
  if (r.is_tegra) out.push_back(tegra_outcome(*r.is_tegra, platform));
  if (r.l4t) out.push_back(l4t_outcome(*r.l4t, platform));
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
  return p;
}

Requirements gpu_part(const Requirements& r) {
  Requirements g;
  g.cuda = r.cuda;
  g.min_cuda_driver = r.min_cuda_driver;
  g.min_memory_bytes = r.min_memory_bytes;
  return g;
}

}  // namespace jetgate::gate
