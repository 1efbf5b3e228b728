// SPDX-License-Identifier: Apache-2.0
// The next step a user is told to take, as a command they can paste: it
// carries the --policy and --evidence-dir the user gave, so following it
// never fails with "no gate" (a test runs each kind in a scratch project).
#pragma once

#include <string>
#include <vector>

#include "jetgate/claims/evidence_verdict.hpp"

namespace jetgate::claims {

// What the user ran with; the suggested commands reuse it.
struct CommandContext {
  std::string policy;                      // "" when none was given: `run` uses the built-in policy
  std::vector<std::string> evidence_dirs;  // the first is where `run` should write
};

// A word as a POSIX shell reads it: unchanged when safe, else single-quoted.
std::string shell_quote(const std::string& word);

// `jetgate run GATE --policy P --evidence-dir D`, or "" when no runnable
// command can be named (no policy given and the gate is not in the built-in one).
std::string run_command(const std::string& gate, const CommandContext& ctx);

// ctx with the directory of deciding_file (the evidence that decided a
// gate: the failing board's) first, so the next step runs the gate into that
// board's directory, not into the first --evidence-dir. Unchanged when
// deciding_file is "" (no evidence).
CommandContext deciding_dir_first(const CommandContext& ctx, const std::string& deciding_file);

// What to do about a verdict; "" for fresh green.
std::string next_step(const GateVerdict& v, const std::string& gate, const CommandContext& ctx);

}  // namespace jetgate::claims
