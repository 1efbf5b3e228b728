// SPDX-License-Identifier: Apache-2.0
// Internal to the policy loader: parsing of jetgate's per-gate additions
// ("requires", "probes", "command"), shared by policy.cpp. Each parser
// appends PolicyIssues naming the gate and field instead of failing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/policy/policy.hpp"

namespace jetgate::policy::detail {

struct IssueSink {
  std::vector<PolicyIssue>* issues;
  std::vector<std::string>* warnings;
  void issue(const std::string& subject, std::string what, std::string next) const {
    issues->push_back({subject, std::move(what), std::move(next)});
  }
  void warn(std::string w) const { warnings->push_back(std::move(w)); }
};

// A key outside `known` is an issue of SUBJECT: a misspelt "requries" must
// not silently drop a requirement. Keys starting with "x-" are the
// documented way to add one's own and are kept without comment.
void reject_unknown_keys(const nlohmann::json& obj, std::initializer_list<const char*> known,
                         const std::string& where, const std::string& subject,
                         const IssueSink& sink);

Requirements parse_requirements(const nlohmann::json& j, const std::string& gate,
                                const IssueSink& sink);
std::vector<ProbeCheck> parse_probe_checks(const nlohmann::json& j, const std::string& gate,
                                           const IssueSink& sink);
std::optional<CommandSpec> parse_command(const nlohmann::json& j, const std::string& gate,
                                         const IssueSink& sink);

// "trusted_keys": the valid entries; each invalid one is an issue of "policy".
std::vector<trust::TrustedKey> parse_trusted_keys(const nlohmann::json& j, const IssueSink& sink);

// "regressions": the thresholds it sets over the defaults; each bad field is an issue.
RegressionThresholds parse_regressions(const nlohmann::json& j, const IssueSink& sink);

// "12.6.1" -> {12, 6, 1}; nullopt when any component is not a number.
std::optional<std::vector<long>> parse_version(const std::string& v);

}  // namespace jetgate::policy::detail
