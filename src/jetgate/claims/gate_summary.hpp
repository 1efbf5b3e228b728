// SPDX-License-Identifier: Apache-2.0
// One row per gate for `jetgate summary`: its newest evidence judged like the
// support matrix judges it, its constraint ("requires") and its waiver from
// the policy when one is given. Rendering is report/summary_markdown's job.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/claims/claim_inputs.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/gate_decision.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/policy/policy.hpp"

namespace jetgate::claims {

struct WaiverNote {
  bool active = false;
  std::string expires;  // "YYYY-MM-DD" for an active waiver
  std::string issue;    // tracker URL
  std::string reason;   // the waiver's reason, or why it is not valid
};

struct SummaryRow {
  std::string gate;
  bool in_policy = false;
  std::string constraint;  // the gate's requires in words; "" when none or no policy
  std::optional<WaiverNote> waiver;
  GateEntry decision;                   // the gate's verdict, decided like `check` decides it
  std::optional<PlatformKey> platform;  // where the deciding evidence was recorded
  std::string next;                     // what to do when it is not fresh green ("" when it is)
};

// A deciding file as the summary shows it: its whole document, read again
// (the loader keeps only what verdicts read), or why that failed.
struct ShownEvidence {
  const LoadedEvidence* loaded;         // points into the inputs
  Result<evidence::Evidence> document;  // with extra: every fact it records
};

struct GateSummary {
  JudgeRules rules;
  std::string policy_source;       // "" without a policy
  std::vector<SummaryRow> rows;    // policy gates in policy order, then others sorted
  SupportMatrix matrix;            // the same evidence by platform (for the issue body)
  std::size_t evidence_files = 0;  // every loaded file
  // The file that decided each row, then each one that decides a gate on a
  // platform of the matrix, once each: what the summary shows beyond the
  // verdicts (failed checks, platform facts, probes). At most a file per
  // gate and platform, however many files were loaded.
  std::vector<ShownEvidence> shown;
  // Each --evidence-dir that holds no evidence file at all: a board and lane
  // that produced nothing (check names them too), in the order given.
  std::vector<std::string> empty_lanes;

  // The shown document of the file that decided row; nullptr when none or unreadable.
  const evidence::Evidence* shown_document(const SummaryRow& row) const;
};

// The inputs are resolved once, as for `check` and `support`.
// The summary's rows point into in.evidence: `in` must outlive the summary,
// so a temporary is refused at compile time.
GateSummary build_gate_summary(const ClaimInputs& in);
GateSummary build_gate_summary(const ClaimInputs&& in) = delete;

// `summary --json` (docs/schemas/summary.schema.json): one entry per row, each
// with the gate's decision as `support --json` shows it.
nlohmann::json to_json(const GateSummary& s);

// "aarch64; Jetson; L4T >= 36.0; a CUDA device; CUDA driver >= 12.2;
// GPU memory >= 16 GiB" ("" when the gate requires nothing).
std::string describe_requirements(const policy::Requirements& r);

}  // namespace jetgate::claims
