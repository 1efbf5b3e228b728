// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/gate_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "jetgate/core/json_text.hpp"
#include "jetgate/policy/waivers.hpp"

namespace jetgate::claims {
namespace {

std::string memory_in_words(std::int64_t bytes) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  return fmt::format("{:g} GiB", static_cast<double>(bytes) / kGiB);
}

std::string version_range(const char* what, const policy::VersionRange& r) {
  if (r.min && r.max) return fmt::format("{} {} to {}", what, *r.min, *r.max);
  if (r.min) return fmt::format("{} >= {}", what, *r.min);
  if (r.max) return fmt::format("{} <= {}", what, *r.max);
  return fmt::format("a known {} release", what);
}

std::string any_of(const char* what, const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " or ") + n;
  return fmt::format("{} {}", what, out);
}

std::map<std::string, WaiverNote> waiver_notes(const policy::LoadedPolicy& p, Date today) {
  std::map<std::string, WaiverNote> notes;
  auto review = policy::review_waivers(p.policy, today);
  for (const auto& issue : review.issues)
    notes[issue.subject] = WaiverNote{false, "", "", issue.what};
  for (const auto& [id, w] : review.active)
    notes[id] = WaiverNote{true, evidence::to_string(w.expires), w.issue, w.reason};
  return notes;
}

nlohmann::json row_json(const SummaryRow& r) {
  nlohmann::json waiver = nullptr;
  if (r.waiver)
    waiver = {{"active", r.waiver->active},
              {"expires", text_or_null(r.waiver->expires)},
              {"issue", text_or_null(r.waiver->issue)},
              {"reason", text_or_null(r.waiver->reason)}};
  nlohmann::json platform = nullptr;
  if (r.platform)
    platform = {{"platform", r.platform->platform},
                {"runtime", r.platform->runtime},
                {"identified", r.platform->identified}};
  return {{"gate", r.gate},
          {"in_policy", r.in_policy},
          {"requires", text_or_null(r.constraint)},
          {"waiver", waiver},
          {"decision", to_json(r.decision)},
          {"platform", platform},
          {"status", to_string(status_of(r.decision.verdict.state))},
          {"holds", backs_claim(r.decision.verdict)},
          {"next", text_or_null(r.next)}};
}

}  // namespace

std::string describe_requirements(const policy::Requirements& r) {
  std::vector<std::string> parts;
  if (!r.arch.empty()) {
    std::string archs;
    for (const auto& a : r.arch) archs += (archs.empty() ? "" : " or ") + a;
    parts.push_back(archs);
  }
  if (r.is_tegra) parts.push_back(*r.is_tegra ? "Jetson (Tegra)" : "not a Jetson");
  if (r.l4t) parts.push_back(version_range("L4T", *r.l4t));
  if (r.jetpack) parts.push_back(version_range("JetPack", *r.jetpack));
  if (!r.module.empty()) parts.push_back(any_of("module", r.module));
  if (!r.soc.empty()) parts.push_back(any_of("SoC", r.soc));
  if (!r.power_mode.empty()) parts.push_back(any_of("power mode", r.power_mode));
  if (r.cuda) parts.push_back("a CUDA device");
  if (r.min_cuda_driver) parts.push_back("CUDA driver >= " + *r.min_cuda_driver);
  if (r.min_memory_bytes) parts.push_back("GPU memory >= " + memory_in_words(*r.min_memory_bytes));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

GateSummary build_gate_summary(const ClaimInputs& in) {
  GateSummary s;
  s.rules = in.rules;
  s.matrix = build_support_matrix(in.evidence);
  s.evidence_files = in.evidence.loaded.size();
  {
    std::set<std::string> seen;
    for (const auto& le : in.evidence.loaded) seen.insert(directory_key(le.file));
    for (const auto& sf : in.evidence.skipped) seen.insert(directory_key(sf.file));
    for (const auto& dir : in.evidence_dirs)
      if (!seen.count(normal_directory(dir))) s.empty_lanes.push_back(dir);
  }
  auto decide = [&](SummaryRow& row) {
    row.decision = decide_gate(in.evidence, row.gate);
    if (row.decision.evidence) row.platform = *row.decision.evidence->platform;
    row.next = next_step(row.decision.verdict, row.gate,
                         deciding_dir_first(in.commands, row.decision.file));
  };
  if (in.policy) {
    s.policy_source = in.policy->policy.source;
    auto notes = waiver_notes(*in.policy, in.rules.today);
    for (const auto& g : in.policy->policy.gates) {
      SummaryRow row;
      row.gate = g.id;
      row.in_policy = true;
      row.constraint = describe_requirements(g.requirements);
      if (g.software_only)
        row.constraint += (row.constraint.empty() ? "" : "; ") + std::string("software only");
      if (auto n = notes.find(g.id); n != notes.end()) row.waiver = n->second;
      decide(row);
      s.rows.push_back(std::move(row));
    }
  }
  std::set<std::string> others;
  for (const auto& le : in.evidence.loaded) others.insert(le.evidence.gate);
  for (const auto& gate : others) {
    bool listed = std::any_of(s.rows.begin(), s.rows.end(),
                              [&](const SummaryRow& r) { return r.gate == gate; });
    if (listed) continue;
    SummaryRow row;
    row.gate = gate;
    decide(row);
    s.rows.push_back(std::move(row));
  }
  auto show = [&](const LoadedEvidence* le) {
    if (!le) return;
    bool seen = std::any_of(s.shown.begin(), s.shown.end(),
                            [&](const ShownEvidence& x) { return x.loaded == le; });
    if (!seen) s.shown.push_back({le, in.evidence.reread(*le)});
  };
  for (const auto& row : s.rows) show(row.decision.evidence);
  for (const auto& m_row : s.matrix.rows)
    for (const auto& entry : m_row.gates) show(entry.evidence);
  return s;
}

const evidence::Evidence* GateSummary::shown_document(const SummaryRow& row) const {
  for (const auto& x : shown)
    if (x.loaded == row.decision.evidence && x.document.ok()) return &*x.document;
  return nullptr;
}

nlohmann::json to_json(const GateSummary& s) {
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& r : s.rows) gates.push_back(row_json(r));
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& f : s.matrix.skipped) skipped.push_back({{"file", f.file}, {"why", f.why}});
  return {{"schema_version", 1},
          {"today", evidence::to_string(s.rules.today)},
          {"max_age_days", s.rules.max_age_days},
          {"candidate_sha", text_or_null(s.rules.candidate_sha)},
          {"policy", text_or_null(s.policy_source)},
          {"gates", gates},
          {"skipped", skipped}};
}

}  // namespace jetgate::claims
