// SPDX-License-Identifier: Apache-2.0
// What a gate is, as evidence binds to it: the canonical form of the gate's
// definition (its "requires", its "probes" with their thresholds and its
// "command", JUnit path included) and the SHA-256 of that form. `run`
// records the digest in the evidence; `check`, `support --policy` and
// `summary --policy` refuse evidence whose digest is not the policy's, so
// evidence of a smaller gate with the same id never backs the project's
// claim (docs/gates.md, "Which definition made the evidence").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/policy/policy.hpp"

namespace jetgate::policy {

// {"command": ..., "probes": [...], "requires": {...}} as the policy wrote
// them (absent ones as null, [] and {}), keys sorted: the same definition
// always has the same form, and any change to what the gate checks changes it.
nlohmann::json definition_form(const Gate& gate);
// 64 lowercase hex digits: SHA-256 of definition_form(gate).dump().
std::string definition_sha256(const Gate& gate);

// What a verdict needs of the policy's gate to judge evidence of it.
struct GateExpectation {
  std::string sha256;               // definition_sha256
  std::string policy_source;        // where the policy came from, for messages
  Requirements requirements;        // re-checked on the facts the evidence records
  std::vector<std::string> probes;  // every probe id the gate names
  bool command = false;             // the gate names a command
};
GateExpectation expectation_of(const Gate& gate, const std::string& policy_source);

}  // namespace jetgate::policy
