// `jetgate check`: may the project claim what its policy's gates cover?
// Validates the policy and its waivers (anchors.md §2), then, for each
// required gate, the evidence: it exists, parses, names the gate, passed, is
// consistent (passed with tests = 0, skips, failures, errors or a non-zero
// exit code is rejected), matches the candidate SHA (unless a valid
// stale-evidence exception is given), is not dated after --today, and is at
// most maximum_evidence_age_days old (exactly that old is still fresh).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/gate/policy.hpp"
#include "jetgate/gate/waivers.hpp"

namespace jetgate::gate {

struct CheckOptions {
  std::optional<std::string> evidence_dir;   // none: validate the policy only
  std::string candidate_sha;                 // required with evidence_dir
  std::vector<std::string> required_gates;   // empty: every gate without an active waiver
  evidence::Date today;
  std::optional<StaleException> stale_exception;
};

struct Violation {
  std::string gate;  // a gate id, or "policy"
  std::string what;
  std::string next;
  std::string line() const;  // "GATE: what; next"
};

// One row per policy gate: what check decided about it.
struct GateRow {
  std::string gate;
  std::string state;  // "holds", "violated", "waived", "not_required", "unchecked"
  nlohmann::json evidence = nullptr;  // summary of the evidence read, when any
  nlohmann::json waiver = nullptr;    // the active waiver, when any
};

struct CheckResult {
  std::vector<Violation> violations;
  std::vector<GateRow> gates;
  std::vector<std::string> warnings;
  bool holds() const { return violations.empty(); }
};

CheckResult check_claim(const LoadedPolicy& policy, const CheckOptions& options);
nlohmann::json to_json(const CheckResult& r, const CheckOptions& options, const Policy& policy);

}  // namespace jetgate::gate
