// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/gate_decision.hpp"

#include <algorithm>
#include <utility>

#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"

namespace jetgate::claims {
namespace {

// The later of two files of a gate: the later instant (undated is the
// oldest), then the later file name. Where green matters between two files
// of the same instant, the one that is not green is the newer (a tie never
// turns red into green): decide() asks for it only then.
bool later(const LoadedEvidence& a, const LoadedEvidence& b) {
  if (a.when != b.when) return b.when < a.when;  // nullopt compares smallest
  return a.file > b.file;
}

// The newest file of one platform combination on one board and lane: the
// files [first, last), sorted by later(), the newest first.
const LoadedEvidence* newest_of(const EvidenceSet& set, const LoadedEvidence* const* first,
                                const LoadedEvidence* const* last) {
  const LoadedEvidence* best = *first;
  // Files of the same instant: one that is not green is the newer (in file
  // order, the later name first).
  for (const auto* const* f = first + 1; f != last && (*f)->when == best->when; ++f)
    if (set.backs(*best)) {
      if (!set.backs(**f)) return *f;
    } else {
      break;
    }
  return best;
}

// Across lanes and platforms, a newest file that does not back a claim
// decides over one that does; among those alike, the newer decides. A
// signature is checked only where it can change which file decides: files
// whose verdict is already red need none, and a green one older than the
// newest red one cannot decide whether its signature holds or not.
const LoadedEvidence* decider_of(const EvidenceSet& set,
                                 std::vector<const LoadedEvidence*> newest) {
  std::sort(newest.begin(), newest.end(),
            [](const LoadedEvidence* a, const LoadedEvidence* b) { return later(*a, *b); });
  const LoadedEvidence* newest_red = nullptr;
  for (const auto* f : newest)
    if (!backs_claim(f->unsigned_verdict)) {
      newest_red = f;
      break;
    }
  // The green ones newer than the newest red one, newest first: the first whose
  // signature fails decides. Checked a batch at a time on every core (an all
  // green fleet needs every one).
  std::size_t candidates = 0;
  while (candidates < newest.size() && (!newest_red || later(*newest[candidates], *newest_red)))
    ++candidates;
  constexpr std::size_t kBatch = 64;
  for (std::size_t start = 0; start < candidates; start += kBatch) {
    std::size_t end = std::min(candidates, start + kBatch);
    if (set.rules().signatures_required)
      set.check_signatures({newest.begin() + static_cast<std::ptrdiff_t>(start),
                            newest.begin() + static_cast<std::ptrdiff_t>(end)});
    for (std::size_t i = start; i < end; ++i)
      if (!set.backs(*newest[i])) return newest[i];
  }
  return newest_red ? newest_red : newest.front();
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

GateEntry decide_gate(const EvidenceSet& set, const std::string& gate) {
  auto files = evidence_of_gate(set, gate);
  if (files.empty())
    for (const auto& s : set.skipped)
      if (s.gate == gate) {
        GateEntry unreadable;
        unreadable.gate = gate;
        unreadable.file = s.file;
        unreadable.verdict =
            verdict_without_evidence(GateState::unreadable, "evidence is unreadable: " + s.why);
        return unreadable;
      }
  return decide_gate(set, gate, files);
}

GateEntry decide_gate(const EvidenceSet& set, const std::string& gate,
                      const std::vector<const LoadedEvidence*>& files) {
  GateEntry best;
  best.gate = gate;
  best.evidence_files = static_cast<int>(files.size());
  if (files.empty()) {
    best.verdict = verdict_without_evidence(
        GateState::missing, "no evidence (no " + gate + ".json in the evidence directories)");
    return best;
  }
  // The newest file of each platform combination (support's rows: platform
  // and runtime) on each board and lane decides there; the gate is then the
  // worst of those, so a newer green run on one board, or in the native lane,
  // never hides another board's or the container lane's failure.
  // By number, not by string: a fleet's month has a lane per board, or per
  // directory, by the thousand.
  std::vector<const LoadedEvidence*> sorted(files);
  std::sort(sorted.begin(), sorted.end(), [](const LoadedEvidence* a, const LoadedEvidence* b) {
    if (a->platform_id != b->platform_id) return a->platform_id < b->platform_id;
    if (a->lane_id != b->lane_id) return a->lane_id < b->lane_id;
    return later(*a, *b);
  });
  std::vector<const LoadedEvidence*> newest;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t end = i + 1;
    while (end < sorted.size() && sorted[end]->platform_id == sorted[i]->platform_id &&
           sorted[end]->lane_id == sorted[i]->lane_id)
      ++end;
    newest.push_back(newest_of(set, sorted.data() + i, sorted.data() + end));
    i = end;
  }
  const LoadedEvidence* decider = decider_of(set, std::move(newest));
  best.verdict = set.verdict(*decider);
  best.file = decider->file;
  best.git_sha = decider->evidence.git_sha;
  best.generated_at = decider->evidence.generated_at;
  best.evidence = decider;
  best.signature = &set.signature(*decider);
  return best;
}

}  // namespace jetgate::claims
