// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/support_matrix.hpp"

#include <algorithm>
#include <map>
#include <string_view>

#include "jetgate/core/json_text.hpp"

namespace jetgate::claims {
namespace {

// platform, runtime: views into the set's platform keys, which outlive the matrix's making.
using RowKey = std::pair<std::string_view, std::string_view>;

}  // namespace

std::vector<std::string> MatrixRow::supported_gates() const {
  std::vector<std::string> ids;
  if (!key.identified) return ids;
  for (const auto& g : gates)
    if (backs_claim(g.verdict)) ids.push_back(g.gate);
  return ids;
}

SupportMatrix build_support_matrix(const EvidenceSet& set) {
  SupportMatrix m;
  m.rules = set.rules();
  m.skipped = set.skipped;
  // Group the evidence by platform, then decide each gate there on its own.
  std::map<RowKey, PlatformKey> keys;
  std::map<RowKey, std::map<std::string, std::vector<const LoadedEvidence*>>> files;
  for (const auto& le : set.loaded) {
    const PlatformKey& key = *le.platform;
    RowKey rk{key.platform, key.runtime};
    keys.try_emplace(rk, key);
    files[rk][le.evidence.gate].push_back(&le);
  }
  for (auto& [rk, by_gate] : files) {
    MatrixRow row;
    row.key = keys.at(rk);
    for (const auto& [gate, gate_files] : by_gate)  // std::map: sorted by gate id
      row.gates.push_back(decide_gate(set, gate, gate_files));
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
          {"today", evidence::to_string(m.rules.today)},
          {"max_age_days", m.rules.max_age_days},
          {"candidate_sha", text_or_null(m.rules.candidate_sha)},
          {"rows", rows},
          {"skipped", skipped}};
}

}  // namespace jetgate::claims
