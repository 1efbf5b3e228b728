// SPDX-License-Identifier: Apache-2.0
// The one verdict on evidence. `check`, `support` and `summary` all judge a
// gate's evidence with judge_evidence() under the same JudgeRules, so they
// cannot disagree (docs/claims.md, "One verdict"). "Fresh green" is the only
// state that backs a claim: passed; consistent counts (tests > 0, no
// failures, errors or skips, exit code 0 where recorded); facts from the live
// machine; a tree shown clean ("dirty": false); with a policy, made by the
// policy's definition of the gate, its requirements met by the facts it
// records, every probe and the command it names present; a real commit (the candidate's, when one
// is given); dated in UTC, not in the future, at most max_age_days old; and,
// when the policy names trusted_keys, signed by one of them that has not
// expired, over exactly this evidence (trust/verify.hpp).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/claims/freshness.hpp"
#include "jetgate/core/outcome.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/policy/gate_definition.hpp"
#include "jetgate/trust/verify.hpp"

namespace jetgate::claims {

enum class GateState {
  fresh_green,
  failed,              // status failed
  not_run,             // status not_run (requirements unmet)
  inconsistent,        // status passed, counts or exit code say otherwise
  not_live,            // facts from a recorded root (or not recorded at all by jetgate evidence)
  dirty,               // tracked files had uncommitted changes when the gate ran
  not_shown_clean,     // "dirty" is null or absent: git could not say the tree was clean
  other_definition,    // made by another definition of the gate than the policy's
  requirements_unmet,  // the facts it records do not meet the policy's "requires"
  incomplete,          // a probe or the command the policy's gate names has no result in it
  no_commit,           // git_sha "local": names no commit
  other_commit,        // a real commit, but not the candidate (and no stale-evidence exception)
  undated,             // generated_at is not a timestamp with a zone
  future_dated,        // dated after today
  stale,               // older than max_age_days
  missing,             // no evidence file for the gate
  unreadable,          // a file for the gate that is not valid evidence of it
  untrusted,           // the policy names trusted_keys, and no valid signature by one covers it
};

const char* to_string(GateState s);  // "fresh_green", "stale", ...: the JSON "state"
// The state in the one status vocabulary: fresh green is PASS, no evidence and a
// gate that did not run are NOT_RUN, every other state is FAIL.
Outcome status_of(GateState s);
// The state in words for people: "fresh green", "uncommitted changes", ...
const char* describe(GateState s);

// What every command judges by; the CLI builds it once from the same options.
struct JudgeRules {
  Date today{};
  int max_age_days = kDefaultMaxEvidenceAgeDays;
  std::string candidate_sha;         // empty: any real commit; else exactly this one
  bool stale_exception = false;      // a valid stale-evidence exception admits another real commit
  bool signatures_required = false;  // the policy names trusted_keys (docs/trust.md)
  // The policy's definition of each gate jetgate runs (those with probes or a
  // command), by gate id; empty without a policy. Evidence of such a gate must
  // have been made by this definition (policy/gate_definition.hpp).
  std::map<std::string, policy::GateExpectation> definitions{};
};

struct GateVerdict {
  GateState state = GateState::missing;
  std::string detail;                 // why this state, in words; empty for fresh_green
  std::vector<std::string> problems;  // every reason it is not fresh green, worst first
  std::string evidence_date;          // UTC "YYYY-MM-DD" of generated_at; empty when undated
  long age_days = 0;                  // meaningful only when evidence_date is set
  // What does not change the state but the user should know (evidence from
  // before gate definitions were recorded, judged by the re-check alone).
  // Fixed texts (a fleet's files share them; nothing is copied per file).
  std::vector<std::string_view> warnings{};
};

// The verdict's problems with one cause said once: a gate that did not run
// (its requirements unmet) has that as its one finding, its unmet
// requirements and the probes and command that therefore have no result as
// its details in one line; any other verdict's problems as they are.
std::vector<std::string> findings(const GateVerdict& v);

// The one verdict on evidence, with what was found about its signature
// (trust/verify.hpp): judge_unsigned, then with_signature.
GateVerdict judge_evidence(const evidence::Evidence& e, const trust::SignatureCheck& signature,
                           const JudgeRules& rules);
// Evidence without a signature check: untrusted whenever signatures are required.
GateVerdict judge_evidence(const evidence::Evidence& e, const JudgeRules& rules);

// Every finding but the signature's: what the loader of evidence judges each
// file by as it reads it (claims/evidence_set.hpp), before the signature,
// which costs far more, is checked only where it decides something.
GateVerdict judge_unsigned(const evidence::Evidence& e, const JudgeRules& rules);
// The verdict once the signature is known: when the rules ask for signatures
// and this one does not prove the evidence, that is its first problem (the
// state becomes untrusted); otherwise v unchanged.
GateVerdict with_signature(GateVerdict v, const trust::SignatureCheck& signature,
                           const JudgeRules& rules);
// Whether the signature leaves a verdict as it is (with_signature adds nothing).
bool signature_holds(const trust::SignatureCheck& signature, const JudgeRules& rules);

// A verdict without evidence: missing, or unreadable with the reason.
GateVerdict verdict_without_evidence(GateState state, std::string why);

// Only fresh green evidence backs a claim.
inline bool backs_claim(const GateVerdict& v) {
  return v.state == GateState::fresh_green;
}

}  // namespace jetgate::claims
