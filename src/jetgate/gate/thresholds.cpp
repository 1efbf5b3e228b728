// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/thresholds.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "jetgate/policy/requirements.hpp"

namespace jetgate::gate {
namespace {

using probes::ProbeStatus;

// " (the floor for module in [p3701-0005] and power_mode in [MAXN])": which
// of a gate's floors this is, for a check with a "when".
std::string when_text(const policy::ProbeCheck& c) {
  if (!c.when.any()) return {};
  std::vector<std::string> parts;
  for (const auto& o : policy::evaluate_requirements(c.when, nullptr, nullptr))
    parts.push_back(o.requirement);
  return fmt::format(" (the gate's floor for {})", fmt::join(parts, " and "));
}

std::string describe(const policy::ProbeCheck& c) {
  if (c.min && c.max)
    return fmt::format("{} in [{}, {}]{}", *c.metric, *c.min, *c.max, when_text(c));
  if (c.min) return fmt::format("{} >= {}{}", *c.metric, *c.min, when_text(c));
  return fmt::format("{} <= {}{}", *c.metric, *c.max, when_text(c));
}

// Empty when the check holds; otherwise what is wrong.
std::string check_problem(const policy::ProbeCheck& c, const probes::ProbeResult& r) {
  if (c.status && r.status != ProbeStatus::pass)
    return fmt::format("status is {}, the gate requires PASS{}", probes::to_string(r.status),
                       r.reason.empty() ? "" : " (" + r.reason + ")");
  if (!c.metric) return {};
  auto it = r.values.find(*c.metric);
  if (it == r.values.end())
    return fmt::format("did not report {} (needed for {})", *c.metric, describe(c));
  double v = it->second.value;
  if ((c.min && !(v >= *c.min)) || (c.max && !(v <= *c.max)))  // NaN fails both
    return fmt::format("{} = {:.4g}{} misses {}", *c.metric, v,
                       it->second.unit.empty() ? "" : " " + it->second.unit, describe(c));
  return {};
}

}  // namespace

bool check_applies(const policy::ProbeCheck& c, const nlohmann::json& platform) {
  return !c.when.any() || policy::all_met(policy::evaluate_requirements(c.when, platform, nullptr));
}

std::vector<ProbeOutcome> evaluate_probe_checks(
    const std::vector<policy::ProbeCheck>& checks,
    const std::map<std::string, probes::ProbeResult>& results, const nlohmann::json& platform) {
  std::vector<ProbeOutcome> out;
  auto outcome_for = [&](const std::string& id) -> ProbeOutcome& {
    for (auto& o : out)
      if (o.probe == id) return o;
    out.push_back({id, Outcome::pass, {}});
    return out.back();
  };
  for (const auto& c : checks) {
    if (!check_applies(c, platform)) continue;
    ProbeOutcome& o = outcome_for(c.probe);
    auto it = results.find(c.probe);
    if (it == results.end()) {
      o.status = Outcome::skip;
      o.problems.push_back("did not run (no result)");
      continue;
    }
    const auto& r = it->second;
    if (r.status == ProbeStatus::skip || r.status == ProbeStatus::not_run) {
      o.status = Outcome::skip;
      if (o.problems.empty())
        o.problems.push_back(fmt::format("did not run: {}{}", probes::to_string(r.status),
                                         r.reason.empty() ? "" : " (" + r.reason + ")"));
      continue;
    }
    if (r.status == ProbeStatus::fail) {
      o.status = Outcome::fail;
      if (o.problems.empty()) o.problems.push_back("FAIL: " + r.reason);
      continue;
    }
    if (auto p = check_problem(c, r); !p.empty()) {
      o.status = Outcome::fail;
      o.problems.push_back(std::move(p));
    }
  }
  return out;
}

evidence::Counts probe_counts(const std::vector<ProbeOutcome>& outcomes) {
  evidence::Counts c;
  for (const auto& o : outcomes) {
    ++c.tests;
    if (o.status == Outcome::fail) ++c.failures;
    if (o.status == Outcome::skip) ++c.skipped;
  }
  return c;
}

}  // namespace jetgate::gate
