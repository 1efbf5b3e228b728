#include "jetgate/evidence/git_sha.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "jetgate/probes/child.hpp"

namespace jetgate::evidence {
namespace {

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

GitSha accept(std::string value, const char* source) {
  GitSha out;
  out.source = source;
  value = trimmed(std::move(value));
  if (is_commit_sha(value)) {
    out.sha = value;
  } else {
    std::string shown = value.size() > 60 ? value.substr(0, 60) + "..." : value;
    out.warnings.push_back(fmt::format(
        "{} is \"{}\", not 40 lowercase hex digits; recording git_sha \"local\" (evidence from "
        "this run cannot match a candidate commit)",
        source, shown));
  }
  return out;
}

}  // namespace

bool is_commit_sha(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

GitSha resolve_git_sha(const EnvLookup& env, const GitHead& git_head) {
  for (const char* name : {"GITHUB_SHA", "CI_COMMIT_SHA"}) {
    auto v = env(name);
    if (v && !v->empty()) return accept(*v, name);
  }
  if (auto head = git_head(); head && !trimmed(*head).empty()) return accept(*head, "git rev-parse HEAD");
  GitSha none;
  none.source = "none";
  return none;
}

GitSha resolve_git_sha_live(const std::string& repo_root) {
  auto env = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (!v) return std::nullopt;
    return std::string(v);
  };
  auto git = [&]() -> std::optional<std::string> {
    probes::ProcessSpec spec;
    spec.argv = {"git", "-C", repo_root.empty() ? "." : repo_root, "rev-parse", "HEAD"};
    probes::ChildLimits limits;
    limits.timeout = std::chrono::milliseconds(5000);
    limits.max_output_bytes = 4096;
    auto out = probes::run_process(spec, limits);
    if (out.kind != probes::ChildOutcome::Kind::exited || out.exit_code != 0) return std::nullopt;
    return out.output;
  };
  return resolve_git_sha(env, git);
}

}  // namespace jetgate::evidence
