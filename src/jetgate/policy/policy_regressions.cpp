// SPDX-License-Identifier: Apache-2.0
// "regressions": the thresholds of `jetgate history regressions` (docs/history.md),
// parsed as strictly as the rest of the policy: a misspelt key or a value out of range
// is an issue, never a silent default.
#include <fmt/format.h>

#include <cmath>

#include "jetgate/core/json_text.hpp"
#include "jetgate/policy/policy_parse_detail.hpp"

namespace jetgate::policy::detail {
namespace {

constexpr const char* kDocs = "see docs/history.md, section Thresholds";

void whole(const nlohmann::json& j, const char* key, std::int64_t lo, std::int64_t hi,
           std::int64_t& field, const IssueSink& sink) {
  if (!j.contains(key)) return;
  if (auto v = integer_in_range(j[key], lo, hi))
    field = *v;
  else
    sink.issue("policy",
               fmt::format("regressions.{} must be a whole number from {} to {}, not {}", key, lo,
                           hi, quoted_text(dump_json(j[key]))),
               kDocs);
}

void real(const nlohmann::json& j, const char* key, double lo, double hi, double& field,
          const IssueSink& sink) {
  if (!j.contains(key)) return;
  const auto& v = j[key];
  if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > lo &&
      v.get<double>() <= hi)
    field = v.get<double>();
  else
    sink.issue("policy",
               fmt::format("regressions.{} must be a number above {} and at most {}, not {}", key,
                           lo, hi, quoted_text(dump_json(v))),
               kDocs);
}

}  // namespace

RegressionThresholds parse_regressions(const nlohmann::json& j, const IssueSink& sink) {
  RegressionThresholds t;
  if (!j.is_object()) {
    sink.issue("policy", "\"regressions\" must be an object", kDocs);
    return t;
  }
  reject_unknown_keys(j,
                      {"baseline_runs", "min_baseline_runs", "min_peers", "drop_fraction",
                       "mad_factor", "cpu_rise", "confirm_runs"},
                      "regressions", "policy", sink);
  whole(j, "baseline_runs", 1, 1000, t.baseline_runs, sink);
  whole(j, "min_baseline_runs", 1, 1000, t.min_baseline_runs, sink);
  whole(j, "min_peers", 1, 100000, t.min_peers, sink);
  whole(j, "confirm_runs", 1, 1000, t.confirm_runs, sink);
  real(j, "drop_fraction", 0, 1, t.drop_fraction, sink);
  real(j, "mad_factor", 0, 1000, t.mad_factor, sink);
  real(j, "cpu_rise", 0, 1000, t.cpu_rise, sink);
  if (t.min_baseline_runs > t.baseline_runs)
    sink.issue("policy",
               fmt::format("regressions.min_baseline_runs ({}) is more than baseline_runs ({})",
                           t.min_baseline_runs, t.baseline_runs),
               "make min_baseline_runs at most baseline_runs");
  return t;
}

}  // namespace jetgate::policy::detail
