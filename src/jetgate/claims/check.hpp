// SPDX-License-Identifier: Apache-2.0
// `jetgate check`: may the project claim what its policy's gates cover?
// Validates the policy and its waivers (OBLITERATUS' rules), then decides
// each required gate from the evidence with the one verdict that `support`
// and `summary` use (evidence_verdict.hpp): it exists, parses, names the
// gate, passed, is consistent, comes from the live machine, has no
// uncommitted changes, is for the candidate commit (unless a valid
// stale-evidence exception is given), is not dated after --today, and is at
// most maximum_evidence_age_days old (exactly that old is still fresh).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/claims/claim_inputs.hpp"
#include "jetgate/claims/gate_decision.hpp"

namespace jetgate::claims {

struct Violation {
  std::string gate;  // a gate id, or "policy"
  std::string what;
  std::string next;
  std::string line() const;  // "GATE: what; next"
};

// One row per policy gate: what check decided about it.
struct GateRow {
  std::string gate;
  std::string state;                  // "holds", "violated", "waived", "not_required", "unchecked"
  Outcome status = Outcome::not_run;  // holds PASS, violated FAIL, waived SKIP, else NOT_RUN
  std::optional<GateEntry> decision;  // when its evidence was judged
  nlohmann::json waiver = nullptr;    // the active waiver, when any
};

struct CheckResult {
  std::vector<Violation> violations;
  std::vector<GateRow> gates;
  std::vector<std::string> warnings;
  bool holds() const { return violations.empty(); }
};

// in.policy must be set. Without evidence directories only the policy is validated.
// required_gates empty: every gate without an active waiver.
CheckResult check_claim(const ClaimInputs& in, const std::vector<std::string>& required_gates);
nlohmann::json to_json(const CheckResult& r, const ClaimInputs& in);

}  // namespace jetgate::claims
