// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/gate_decision.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"

namespace jetgate::claims {
namespace {

struct Recency {
  std::optional<std::chrono::sys_seconds> when;  // undated sorts oldest
  bool green = false;
  std::string file;
};

bool newer_than(const Recency& a, const Recency& b) {
  if (a.when != b.when) return b.when < a.when;  // nullopt compares smallest
  if (a.green != b.green) return !a.green;
  return a.file > b.file;
}

Recency recency_of(const LoadedEvidence& le, const GateVerdict& v) {
  Recency r;
  if (auto t = parse_timestamp(le.evidence.generated_at)) r.when = *t;
  r.green = backs_claim(v);
  r.file = le.file;
  return r;
}

struct Judged {
  const LoadedEvidence* le = nullptr;
  GateVerdict verdict;
  Recency recency;
};

// Across platforms: a platform whose newest evidence does not back a claim
// decides over one whose does; otherwise the newer decides.
bool decides_over(const Judged& a, const Judged& b) {
  if (a.recency.green != b.recency.green) return !a.recency.green;
  return newer_than(a.recency, b.recency);
}

const char* to_string(trust::Signature s) {
  switch (s) {
    case trust::Signature::not_checked:
      return "not_checked";
    case trust::Signature::unsigned_:
      return "unsigned";
    case trust::Signature::rejected:
      return "rejected";
    case trust::Signature::verified:
      return "verified";
  }
  return "not_checked";
}

}  // namespace

std::string lane_of(const LoadedEvidence& le) {
  const std::string node = keys::string_at(le.evidence.extra, keys::kLaneNode);
  std::string kind = keys::string_at(le.evidence.extra, keys::kLaneKind);
  if (kind.empty()) {
    const nlohmann::json* c = keys::find(le.evidence.extra, keys::kContainerDetected);
    kind = c && c->is_boolean() && c->get<bool>() ? "container" : "native";
  }
  if (!node.empty()) return "node " + node + " (" + kind + ")";
  // Without a recorded node, the directory it was read from: each board and
  // lane of a workflow writes its own (jetgate init), and one directory holds
  // one file per gate.
  std::string dir = std::filesystem::path(le.file).parent_path().lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return "directory " + (dir.empty() ? std::string(".") : dir) + " (" + kind + ")";
}

nlohmann::json to_json(const GateEntry& g) {
  nlohmann::json j = {{"gate", g.gate},
                      {"status", to_string(status_of(g.verdict.state))},
                      {"state", to_string(g.verdict.state)},
                      {"detail", g.verdict.detail},
                      {"problems", g.verdict.problems},
                      {"evidence_date", g.verdict.evidence_date},
                      {"generated_at", g.generated_at},
                      {"git_sha", g.git_sha},
                      {"file", g.file},
                      {"evidence_files", g.evidence_files},
                      {"signature", signature_json(g)}};
  if (!g.verdict.evidence_date.empty())
    j["age_days"] = g.verdict.age_days;
  else
    j["age_days"] = nullptr;
  return j;
}

nlohmann::json signature_json(const GateEntry& entry) {
  const auto* sig = entry.signature;
  if (!sig) return nullptr;
  return {{"outcome", to_string(sig->outcome)},
          {"envelope", sig->envelope_present},
          {"key_id", text_or_null(sig->key_id)},
          {"owner", text_or_null(sig->owner)},
          {"key_expires", sig->key_expires ? nlohmann::json(evidence::to_string(*sig->key_expires))
                                           : nlohmann::json(nullptr)},
          {"why", text_or_null(sig->why)}};
}

std::vector<const LoadedEvidence*> evidence_of_gate(const EvidenceSet& set,
                                                    const std::string& gate) {
  std::vector<const LoadedEvidence*> out;
  for (const auto& le : set.loaded)
    if (le.evidence.gate == gate) out.push_back(&le);
  return out;
}

GateEntry decide_gate(const std::string& gate, const std::vector<const LoadedEvidence*>& files,
                      const std::vector<SkippedFile>& skipped, const JudgeRules& rules) {
  GateEntry best;
  best.gate = gate;
  best.evidence_files = static_cast<int>(files.size());
  if (files.empty()) {
    for (const auto& s : skipped)
      if (s.gate == gate) {
        best.file = s.file;
        best.verdict =
            verdict_without_evidence(GateState::unreadable, "evidence is unreadable: " + s.why);
        return best;
      }
    best.verdict = verdict_without_evidence(
        GateState::missing, "no evidence (no " + gate + ".json in the evidence directories)");
    return best;
  }
  // The newest file of each platform combination (support's rows: platform
  // and runtime) on each board and lane decides there; the gate is then the
  // worst of those, so a newer green run on one board, or in the native lane,
  // never hides another board's or the container lane's failure.
  std::map<std::tuple<std::string, std::string, std::string>, Judged> newest_per_lane;
  for (const auto* le : files) {
    Judged j{le, judge_evidence(*le, rules), {}};
    j.recency = recency_of(*le, j.verdict);
    PlatformKey key = platform_key(le->evidence);
    auto [it, inserted] = newest_per_lane.try_emplace({key.platform, key.runtime, lane_of(*le)}, j);
    if (!inserted && newer_than(j.recency, it->second.recency)) it->second = std::move(j);
  }
  const Judged* decider = nullptr;
  for (const auto& [lane, j] : newest_per_lane)
    if (!decider || decides_over(j, *decider)) decider = &j;
  best.verdict = decider->verdict;
  best.file = decider->le->file;
  best.git_sha = decider->le->evidence.git_sha;
  best.generated_at = decider->le->evidence.generated_at;
  best.evidence = &decider->le->evidence;
  best.signature = &decider->le->signature;
  return best;
}

}  // namespace jetgate::claims
