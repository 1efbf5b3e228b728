// The options `check`, `support` and `summary` share, declared once so the
// three commands take the same inputs and spell them the same way.
#pragma once

#include <CLI/CLI.hpp>

#include "jetgate/claims/claim_inputs.hpp"

namespace jetgate::cli {

// --policy, --evidence-dir (repeatable), --candidate-sha, --today,
// --max-age-days, --repo-root and the stale-evidence exception.
void add_claim_options(CLI::App* sub, claims::ClaimOptions& o, bool policy_required);

}  // namespace jetgate::cli
