// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/next_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/policy/policy.hpp"

namespace jetgate::claims {
namespace {

bool in_default_policy(const std::string& gate) {
  auto d = policy::load_default_policy();
  return d && policy::find_gate(d->policy, gate) != nullptr;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789-_./=:@+,%") == std::string::npos)
    return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string run_command(const std::string& gate, const CommandContext& ctx) {
  if (ctx.policy.empty() && !in_default_policy(gate)) return {};
  std::string cmd = "jetgate run " + shell_quote(gate);
  if (!ctx.policy.empty()) cmd += " --policy " + shell_quote(ctx.policy);
  if (!ctx.evidence_dirs.empty())
    cmd += " --evidence-dir " + shell_quote(ctx.evidence_dirs.front());
  return cmd;
}

CommandContext deciding_dir_first(const CommandContext& ctx, const std::string& deciding_file) {
  if (deciding_file.empty()) return ctx;
  std::string dir = std::filesystem::path(deciding_file).parent_path().string();
  if (dir.empty()) return ctx;
  CommandContext out = ctx;
  out.evidence_dirs.erase(std::remove_if(out.evidence_dirs.begin(), out.evidence_dirs.end(),
                                         [&](const std::string& d) {
                                           return normal_directory(d) == normal_directory(dir);
                                         }),
                          out.evidence_dirs.end());
  out.evidence_dirs.insert(out.evidence_dirs.begin(), dir);
  return out;
}

std::string next_step(const GateVerdict& v, const std::string& gate, const CommandContext& ctx) {
  std::string cmd = run_command(gate, ctx);
  // Without a runnable command, say what to run in words.
  std::string run =
      cmd.empty() ? "run the gate with the policy that defines it" : "run `" + cmd + "`";
  switch (v.state) {
    case GateState::fresh_green:
      return {};
    case GateState::failed:
      return "fix what failed, then " + run + " on the target platform";
    case GateState::not_run:
      return run + " on a machine that meets the gate's requirements";
    case GateState::inconsistent:
      return run + " again: passed evidence needs tests > 0 and no skips, failures or errors";
    case GateState::not_live:
      return run + " on the machine itself, without --root";
    case GateState::dirty:
      return "commit or stash your changes, then " + run;
    case GateState::not_shown_clean:
      return "make git work where the gate runs (installed, and the checkout owned by the user "
             "running jetgate or listed in safe.directory), then " +
             run;
    case GateState::other_definition:
      return run + " with this policy: the evidence was made by another definition of the gate";
    case GateState::requirements_unmet:
      return run + " on a machine that meets the policy's requirements";
    case GateState::incomplete:
      return run + " with this policy, so every probe and the command it names run";
    case GateState::no_commit:
      return run + " in a git checkout or CI job";
    case GateState::other_commit:
      return run +
             " for the candidate commit, or grant a stale-evidence exception "
             "(--stale-evidence-reason, --stale-evidence-issue, --stale-evidence-expires)";
    case GateState::future_dated:
      return "check the runner's clock and --today, then " + run;
    case GateState::undated:
    case GateState::stale:
      return run + " again";
    case GateState::missing:
      return run + " on the target platform";
    case GateState::unreadable:
      return run + " again to replace the file";
    case GateState::untrusted:
      return run + " on a runner whose key the policy trusts, with --sign-key (docs/trust.md)";
  }
  return run;
}

}  // namespace jetgate::claims
