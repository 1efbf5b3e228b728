// SPDX-License-Identifier: Apache-2.0
#include "jetgate/policy/gate_definition.hpp"

#include "jetgate/evidence/gate_log.hpp"

namespace jetgate::policy {
namespace {

nlohmann::json field_or(const nlohmann::json& raw, const char* key, nlohmann::json fallback) {
  if (raw.is_object())
    if (auto it = raw.find(key); it != raw.end()) return *it;
  return fallback;
}

}  // namespace

nlohmann::json definition_form(const Gate& gate) {
  // nlohmann::json keeps object keys sorted, so dump() is one text per definition.
  return nlohmann::json{{"command", field_or(gate.raw, "command", nullptr)},
                        {"probes", field_or(gate.raw, "probes", nlohmann::json::array())},
                        {"requires", field_or(gate.raw, "requires", nlohmann::json::object())}};
}

std::string definition_sha256(const Gate& gate) {
  return evidence::sha256_hex(
      definition_form(gate).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

GateExpectation expectation_of(const Gate& gate, const std::string& policy_source) {
  GateExpectation e;
  e.sha256 = definition_sha256(gate);
  e.policy_source = policy_source;
  e.requirements = gate.requirements;
  e.probes = gate.probe_ids();
  e.command = gate.command.has_value();
  return e;
}

}  // namespace jetgate::policy
