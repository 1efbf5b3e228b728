#include "jetgate/claims/evidence_verdict.hpp"

#include <fmt/format.h>

#include "jetgate/evidence/git_sha.hpp"

namespace jetgate::claims {
namespace {

// Counts that contradict "passed": the runner's own rule is tests > 0 and
// failures = errors = skipped = 0 ("without skips").
std::string inconsistency(const evidence::Evidence& e) {
  const auto& c = e.counts;
  if (c.tests <= 0) return "status passed but no tests ran (counts.tests = 0)";
  if (c.failures > 0 || c.errors > 0)
    return fmt::format("status passed but counts record {} failures and {} errors", c.failures, c.errors);
  if (c.skipped > 0) return fmt::format("status passed with {} skipped tests: green means without skips", c.skipped);
  if (e.exit_code && *e.exit_code != 0) return fmt::format("status passed but exit_code is {}", *e.exit_code);
  return {};
}

std::string plural_days(long n) { return fmt::format("{} day{}", n, n == 1 ? "" : "s"); }

}  // namespace

const char* to_string(GateState s) {
  switch (s) {
    case GateState::fresh_green: return "fresh_green";
    case GateState::stale: return "stale";
    case GateState::failed: return "failed";
    case GateState::not_run: return "not_run";
    case GateState::inconsistent: return "inconsistent";
    case GateState::no_commit: return "no_commit";
    case GateState::future_dated: return "future_dated";
    case GateState::undated: return "undated";
  }
  return "unknown";
}

GateVerdict judge_evidence(const evidence::Evidence& e, Date today, int max_age_days) {
  GateVerdict v;
  auto day = evidence::utc_date_of_timestamp(e.generated_at);
  if (day) {
    v.evidence_date = evidence::to_string(*day);
    v.age_days = evidence::days_between(*day, today);
  }
  if (e.status == evidence::GateStatus::failed) {
    v.state = GateState::failed;
    v.detail = e.reason.empty() ? "the gate failed" : e.reason;
    return v;
  }
  if (e.status == evidence::GateStatus::not_run) {
    v.state = GateState::not_run;
    v.detail = e.reason.empty() ? "the gate did not run" : e.reason;
    return v;
  }
  if (auto why = inconsistency(e); !why.empty()) {
    v.state = GateState::inconsistent;
    v.detail = why;
    return v;
  }
  if (!evidence::is_commit_sha(e.git_sha)) {
    // "local" evidence names no commit, so nobody can tell what code it tested.
    v.state = GateState::no_commit;
    v.detail = fmt::format("git_sha \"{}\" names no commit, so it cannot back a public claim: run the gate in a "
                           "git checkout or CI job",
                           e.git_sha.substr(0, 64));
    return v;
  }
  if (!day) {
    v.state = GateState::undated;
    v.detail = "generated_at '" + e.generated_at.substr(0, 64) + "' is not an ISO-8601 timestamp with a zone";
    return v;
  }
  if (v.age_days < 0) {
    v.state = GateState::future_dated;
    v.detail = fmt::format("dated {}, after today ({}): check the runner's clock", v.evidence_date, evidence::to_string(today));
    return v;
  }
  if (v.age_days > max_age_days) {
    v.state = GateState::stale;
    v.detail = fmt::format("{} old, older than the {} allowed: run the gate again", plural_days(v.age_days),
                           plural_days(max_age_days));
    return v;
  }
  v.state = GateState::fresh_green;
  return v;
}

}  // namespace jetgate::claims
