#include "jetgate/claims/gate_summary.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "jetgate/gate/waivers.hpp"

namespace jetgate::claims {
namespace {

std::string memory_in_words(std::int64_t bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return fmt::format("{:g} GiB", static_cast<double>(bytes) / kGiB);
}

std::string l4t_range(const gate::VersionRange& r) {
  if (r.min && r.max) return fmt::format("L4T {} to {}", *r.min, *r.max);
  if (r.min) return "L4T >= " + *r.min;
  if (r.max) return "L4T <= " + *r.max;
  return "a known L4T release";
}

// The newest entry per gate over all platforms of the matrix.
std::map<std::string, std::pair<GateEntry, PlatformKey>> newest_by_gate(const SupportMatrix& m) {
  std::map<std::string, std::pair<GateEntry, PlatformKey>> newest;
  for (const auto& row : m.rows)
    for (const auto& g : row.gates) {
      auto it = newest.find(g.gate);
      bool newer = it == newest.end();
      if (!newer) {
        auto a = parse_timestamp(g.generated_at), b = parse_timestamp(it->second.first.generated_at);
        newer = a && (!b || *b < *a);
      }
      if (newer) newest[g.gate] = {g, row.key};
    }
  return newest;
}

std::map<std::string, WaiverNote> waiver_notes(const gate::LoadedPolicy& p, Date today) {
  std::map<std::string, WaiverNote> notes;
  auto review = gate::review_waivers(p.policy, today);
  for (const auto& issue : review.issues)
    notes[issue.subject] = WaiverNote{false, "", "", issue.what};
  for (const auto& [id, w] : review.active)
    notes[id] = WaiverNote{true, evidence::to_string(w.expires), w.issue, w.reason};
  return notes;
}

}  // namespace

std::string describe_requirements(const gate::Requirements& r) {
  std::vector<std::string> parts;
  if (!r.arch.empty()) {
    std::string archs;
    for (const auto& a : r.arch) archs += (archs.empty() ? "" : " or ") + a;
    parts.push_back(archs);
  }
  if (r.is_tegra) parts.push_back(*r.is_tegra ? "Jetson (Tegra)" : "not a Jetson");
  if (r.l4t) parts.push_back(l4t_range(*r.l4t));
  if (r.cuda) parts.push_back("a CUDA device");
  if (r.min_cuda_driver) parts.push_back("CUDA driver >= " + *r.min_cuda_driver);
  if (r.min_memory_bytes) parts.push_back("GPU memory >= " + memory_in_words(*r.min_memory_bytes));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

GateSummary build_gate_summary(const EvidenceSet& set, const gate::LoadedPolicy* policy, Date today,
                               int max_age_days) {
  GateSummary s;
  s.today = today;
  s.max_age_days = max_age_days;
  s.matrix = build_support_matrix(set, today, max_age_days);
  s.evidence = set.loaded;
  auto newest = newest_by_gate(s.matrix);
  auto fill = [&](SummaryRow& row) {
    if (auto it = newest.find(row.gate); it != newest.end()) {
      row.evidence = it->second.first;
      row.platform = it->second.second;
    }
  };
  if (policy) {
    s.policy_source = policy->policy.source;
    auto notes = waiver_notes(*policy, today);
    for (const auto& g : policy->policy.gates) {
      SummaryRow row{g.id, true, describe_requirements(g.requirements), std::nullopt, std::nullopt, std::nullopt};
      if (g.software_only) row.constraint += (row.constraint.empty() ? "" : "; ") + std::string("software only");
      if (auto n = notes.find(g.id); n != notes.end()) row.waiver = n->second;
      fill(row);
      s.rows.push_back(std::move(row));
    }
  }
  for (const auto& [gate, entry] : newest) {
    bool listed = std::any_of(s.rows.begin(), s.rows.end(), [&](const SummaryRow& r) { return r.gate == gate; });
    if (listed) continue;
    SummaryRow row;
    row.gate = gate;
    fill(row);
    s.rows.push_back(std::move(row));
  }
  return s;
}

}  // namespace jetgate::claims
