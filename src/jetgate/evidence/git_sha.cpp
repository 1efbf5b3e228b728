// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/git_sha.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "jetgate/proc/child.hpp"

namespace jetgate::evidence {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// The SHA `value` from `source`, or nullopt with a warning when it is not 40 lowercase hex digits.
std::optional<std::string> accept(std::string value, const char* source,
                                  std::vector<std::string>& warnings) {
  value = trimmed(std::move(value));
  if (is_commit_sha(value)) return value;
  std::string shown = value.size() > 60 ? value.substr(0, 60) + "..." : value;
  warnings.push_back(
      fmt::format("{} is \"{}\", not 40 lowercase hex digits; ignoring it and trying the next "
                  "source (GITHUB_SHA, CI_COMMIT_SHA, git rev-parse HEAD, else \"local\")",
                  source, shown));
  return std::nullopt;
}

}  // namespace

bool is_commit_sha(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

GitSha resolve_git_sha(const EnvLookup& env, const GitHead& git_head) {
  // A malformed CI variable is skipped, not fatal: the checkout's HEAD is still the commit tested.
  GitSha out;
  for (const char* name : {"GITHUB_SHA", "CI_COMMIT_SHA"}) {
    auto v = env(name);
    if (!v || v->empty()) continue;
    if (auto sha = accept(*v, name, out.warnings)) {
      out.sha = *sha;
      out.source = name;
      return out;
    }
  }
  if (auto head = git_head(); head && !trimmed(*head).empty()) {
    if (auto sha = accept(*head, "git rev-parse HEAD", out.warnings)) {
      out.sha = *sha;
      out.source = "git rev-parse HEAD";
      return out;
    }
  }
  out.source = "none";
  return out;
}

namespace {

std::optional<std::string> run_git(const std::string& repo_root, std::vector<std::string> args) {
  proc::ProcessSpec spec;
  spec.argv = {"git", "-C", repo_root.empty() ? "." : repo_root};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // git status refreshes the index and would take index.lock, racing a
  // command (or a person) using git in the same checkout.
  spec.set_env["GIT_OPTIONAL_LOCKS"] = "0";
  proc::ChildLimits limits;
  limits.timeout = std::chrono::milliseconds(5000);
  limits.max_output_bytes = 1u << 20;
  auto out = proc::run_process(spec, limits);
  if (out.kind != proc::ChildOutcome::Kind::exited || out.exit_code != 0) return std::nullopt;
  return out.output;
}

}  // namespace

GitSha resolve_git_sha_live(const std::string& repo_root) {
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (!v) return std::nullopt;
    return std::string(v);
  };
  return resolve_git_sha(env, [&] { return run_git(repo_root, {"rev-parse", "HEAD"}); });
}

GitState read_git_state_live(const std::string& repo_root) {
  GitState s;
  if (auto head = run_git(repo_root, {"rev-parse", "HEAD"})) {
    std::string sha = trimmed(*head);
    if (is_commit_sha(sha)) s.head = sha;
  }
  if (auto status = run_git(
          repo_root, {"status", "--porcelain", "--untracked-files=no", "--ignore-submodules=none"}))
    s.dirty = !status->empty();
  return s;
}

}  // namespace jetgate::evidence
