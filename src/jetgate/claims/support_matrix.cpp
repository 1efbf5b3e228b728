#include "jetgate/claims/support_matrix.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace jetgate::claims {
namespace {

using RowKey = std::pair<std::string, std::string>;  // platform, runtime

// Sort key for "which evidence is newest": undated files sort oldest; at
// equal times a non-green file wins, so a tie never turns red into green.
struct Recency {
  std::optional<std::chrono::sys_seconds> when;
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

nlohmann::json to_json(const GateEntry& g) {
  nlohmann::json j = {{"gate", g.gate},
                      {"state", to_string(g.verdict.state)},
                      {"detail", g.verdict.detail},
                      {"evidence_date", g.verdict.evidence_date},
                      {"generated_at", g.generated_at},
                      {"git_sha", g.git_sha},
                      {"file", g.file},
                      {"evidence_files", g.evidence_files}};
  if (!g.verdict.evidence_date.empty()) j["age_days"] = g.verdict.age_days;
  else j["age_days"] = nullptr;
  return j;
}

}  // namespace

std::vector<std::string> MatrixRow::supported_gates() const {
  std::vector<std::string> ids;
  if (!key.identified) return ids;
  for (const auto& g : gates)
    if (backs_claim(g.verdict)) ids.push_back(g.gate);
  return ids;
}

SupportMatrix build_support_matrix(const EvidenceSet& set, Date today, int max_age_days) {
  SupportMatrix m;
  m.today = today;
  m.max_age_days = max_age_days;
  m.skipped = set.skipped;
  std::map<RowKey, MatrixRow> rows;
  std::map<std::tuple<std::string, std::string, std::string>, Recency> newest;
  for (const auto& le : set.loaded) {
    PlatformKey key = platform_key(le.evidence);
    RowKey rk{key.platform, key.runtime};
    auto [row_it, inserted] = rows.try_emplace(rk);
    if (inserted) row_it->second.key = key;
    auto& row = row_it->second;
    GateEntry entry{le.evidence.gate, judge_evidence(le.evidence, today, max_age_days), le.file,
                    le.evidence.git_sha, le.evidence.generated_at, 1};
    Recency r = recency_of(le, entry.verdict);
    auto existing = std::find_if(row.gates.begin(), row.gates.end(),
                                 [&](const GateEntry& g) { return g.gate == entry.gate; });
    if (existing == row.gates.end()) {
      row.gates.push_back(entry);
      newest[{rk.first, rk.second, entry.gate}] = r;
      continue;
    }
    entry.evidence_files = existing->evidence_files + 1;
    existing->evidence_files = entry.evidence_files;
    auto& best = newest[{rk.first, rk.second, entry.gate}];
    if (newer_than(r, best)) {
      *existing = entry;
      best = r;
    }
  }
  for (auto& [rk, row] : rows) {
    std::sort(row.gates.begin(), row.gates.end(), [](const auto& a, const auto& b) { return a.gate < b.gate; });
    m.rows.push_back(std::move(row));
  }
  return m;
}

std::vector<Claim> supported_claims(const SupportMatrix& m) {
  std::vector<Claim> claims;
  for (const auto& row : m.rows) {
    if (!row.key.identified) continue;
    for (const auto& g : row.gates)
      if (backs_claim(g.verdict))
        claims.push_back({row.key.platform, row.key.runtime, g.gate, g.verdict.evidence_date});
  }
  return claims;
}

nlohmann::json to_json(const SupportMatrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : m.rows) {
    nlohmann::json gates = nlohmann::json::array();
    for (const auto& g : row.gates) gates.push_back(to_json(g));
    rows.push_back({{"platform", row.key.platform},
                    {"runtime", row.key.runtime},
                    {"identified", row.key.identified},
                    {"missing", row.key.missing},
                    {"facts", row.key.facts},
                    {"supported_gates", row.supported_gates()},
                    {"gates", gates}});
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : m.skipped) skipped.push_back({{"file", s.file}, {"why", s.why}});
  return {{"schema_version", 1},
          {"today", evidence::to_string(m.today)},
          {"max_age_days", m.max_age_days},
          {"rows", rows},
          {"skipped", skipped}};
}

}  // namespace jetgate::claims
