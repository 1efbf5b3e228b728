// SPDX-License-Identifier: Apache-2.0
// `jetgate summary` output. "step": a Markdown table for a CI job's step
// summary (gate, status, constraint, waiver, evidence age). "issue": the same
// table plus the recorded platform facts, for an issue body, passed through
// sanitize() as a whole so nothing that names a machine or person leaves it.
#pragma once

#include <string>

#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/report/sanitize.hpp"

namespace jetgate::report {

std::string render_step_summary(const claims::GateSummary& summary);
std::string render_issue_body(const claims::GateSummary& summary, const SanitizeOptions& options);

// Strings that identify this machine inside evidence documents (values under
// keys such as "hostname", "serial_number", "user"), to add to the
// sanitizer's known values.
void add_identifying_values(const nlohmann::json& extra, SanitizeOptions& options);

}  // namespace jetgate::report
