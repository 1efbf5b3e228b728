// SPDX-License-Identifier: Apache-2.0
// The options `check`, `support` and `summary` share, declared once so the
// three commands take the same inputs and spell them the same way.
#pragma once

#include <CLI/CLI.hpp>

#include "jetgate/claims/claim_inputs.hpp"
#include "jetgate/fs/command_files.hpp"

namespace jetgate::cli {

// --policy, --evidence-dir (repeatable), --candidate-sha, --today,
// --max-age-days, --repo-root and the stale-evidence exception.
void add_claim_options(CLI::App* sub, claims::ClaimOptions& o, bool policy_required);

// The paths checked as the command line names them (a --policy that is not a
// regular file is a usage error), then claims::resolve_claim_inputs.
Result<claims::ClaimInputs> resolve_cli_inputs(const claims::ClaimOptions& o);

// The files these options name, as inputs no output may replace: the policy and the
// evidence directories' *.json files.
void add_claim_inputs(fs::CommandFiles& files, const claims::ClaimOptions& o);

}  // namespace jetgate::cli
