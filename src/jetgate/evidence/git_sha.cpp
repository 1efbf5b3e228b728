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

struct GitAnswer {
  std::optional<std::string> output;  // stdout when git exited 0
  int exit_code = -1;                 // -1: git did not run to an exit
  std::string error;                  // stderr, or why git could not start
};

GitAnswer ask_git(const std::string& repo_root, std::vector<std::string> args) {
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
  GitAnswer a;
  if (out.kind != proc::ChildOutcome::Kind::exited) {
    a.error = out.kind == proc::ChildOutcome::Kind::spawn_failed ? out.error_text : out.describe();
    return a;
  }
  a.exit_code = out.exit_code;
  a.error = out.error_text;
  if (out.exit_code == 0) a.output = out.output;
  return a;
}

std::optional<std::string> run_git(const std::string& repo_root, std::vector<std::string> args) {
  return ask_git(repo_root, std::move(args)).output;
}

// git's first line of complaint, printable and short.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
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
  auto status = ask_git(
      repo_root, {"status", "--porcelain", "--untracked-files=no", "--ignore-submodules=none"});
  if (status.output)
    s.dirty = !status.output->empty();
  else
    s.problem = git_problem(repo_root, status.exit_code, status.error);
  return s;
}

std::string git_problem(const std::string& repo_root, int exit_code,
                        const std::string& git_stderr) {
  const std::string where = repo_root.empty() ? "." : repo_root;
  const std::string said = first_line(git_stderr);
  if (said.find("dubious ownership") != std::string::npos)
    return fmt::format(
        "git refused the checkout ({}): it belongs to another user than the one running jetgate; "
        "run jetgate as the checkout's owner (in a container: docker run --user \"$(id -u):$(id "
        "-g)\"), or trust it with: git config --global --add safe.directory {}",
        said, where);
  if (exit_code < 0)
    return fmt::format(
        "git could not run ({}): install git where jetgate runs, so the evidence can show the "
        "tree is clean",
        said.empty() ? "not found" : said);
  if (said.find("not a git repository") != std::string::npos)
    return fmt::format(
        "{} is not a git checkout ({}): run jetgate in the project's checkout, or pass its root "
        "with --repo-root",
        where, said);
  return fmt::format(
      "git status failed in {} (exit status {}{}{}): fix what git says, then run "
      "the gate again",
      where, exit_code, said.empty() ? "" : ": ", said);
}

}  // namespace jetgate::evidence
