// SPDX-License-Identifier: Apache-2.0
// The commit evidence is for: GITHUB_SHA, then CI_COMMIT_SHA (GitLab), then
// `git rev-parse HEAD`, else "local". Evidence never records anything but 40
// lowercase hex digits or "local": a malformed value is skipped with a warning
// and the next source is tried, because a SHA that cannot match a candidate is
// worse than none.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace jetgate::evidence {

struct GitSha {
  std::string sha = "local";
  std::string source;  // "GITHUB_SHA", "CI_COMMIT_SHA", "git rev-parse HEAD" or "none"
  std::vector<std::string> warnings;
};

bool is_commit_sha(const std::string& s);  // 40 lowercase hex digits

using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
using GitHead = std::function<std::optional<std::string>()>;  // stdout of git rev-parse HEAD

GitSha resolve_git_sha(const EnvLookup& env, const GitHead& git_head);
// The live environment and `git -C repo_root rev-parse HEAD` (5 s limit).
GitSha resolve_git_sha_live(const std::string& repo_root);

// The checkout as git sees it, read before and after a gate's command: a
// command that commits (or checks out another commit) moves HEAD, and the
// evidence must not name a commit that was not the one tested.
struct GitState {
  std::optional<std::string> head;  // `git rev-parse HEAD`; nullopt outside git or unreadable
  // Tracked files differ from HEAD (staged or not; untracked files do not
  // count): `git status --porcelain --untracked-files=no` prints anything.
  // nullopt when git could not answer ("not shown clean": never backs a claim).
  std::optional<bool> dirty;
  // Why git could not answer, with what to do (git missing, "detected dubious
  // ownership", not a checkout); empty when dirty is known.
  std::string problem;
};
// What to tell the user when `git status` failed with git_stderr (exit code
// exit_code, or -1 when git could not be started) in repo_root.
std::string git_problem(const std::string& repo_root, int exit_code, const std::string& git_stderr);
// `git -C repo_root ...`, 5 s limit each, without taking git's index lock.
GitState read_git_state_live(const std::string& repo_root);

}  // namespace jetgate::evidence
