#include "jetgate/gate/command_run.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace jetgate::gate {
namespace {

namespace fsys = std::filesystem;

std::string resolve(const std::string& base, const std::string& path) {
  fsys::path p(path);
  return (p.is_absolute() ? p : fsys::path(base) / p).lexically_normal().string();
}

void judge(CommandRun& r, const proc::ChildOutcome& o) {
  using Kind = proc::ChildOutcome::Kind;
  if (o.kind != Kind::exited) {
    r.problems.push_back(fmt::format("{} did not finish: {}", r.argv.front(), r.outcome));
  } else if (o.exit_code != 0) {
    r.problems.push_back(fmt::format("{} exited with status {}", r.argv.front(), o.exit_code));
  }
  auto counts = read_junit_file(r.junit_path);
  if (!counts) {
    r.problems.push_back("JUnit report: " + counts.error().message());
    return;
  }
  r.junit = *counts;
  const auto& c = *counts;
  if (c.tests == 0) r.problems.push_back("the JUnit report lists no tests");
  if (c.failures > 0) r.problems.push_back(fmt::format("{} test(s) failed", c.failures));
  if (c.errors > 0) r.problems.push_back(fmt::format("{} test(s) errored", c.errors));
  if (c.skipped > 0)
    r.problems.push_back(fmt::format("{} test(s) skipped or xfailed: a gate passes only without skips",
                                     c.skipped));
}

}  // namespace

CommandRun run_command(const CommandSpec& spec, const std::string& repo_root, const ProcessRunner& run) {
  CommandRun r;
  r.argv = spec.argv;
  r.cwd = resolve(repo_root.empty() ? "." : repo_root, spec.cwd.value_or("."));
  r.junit_path = resolve(r.cwd, spec.junit);
  std::error_code ec;
  fsys::remove(r.junit_path, ec);
  if (ec) {
    r.outcome = "not started";
    r.problems.push_back(fmt::format("cannot remove the old JUnit report {}: {}", r.junit_path, ec.message()));
    return r;
  }
  proc::ProcessSpec ps;
  ps.argv = spec.argv;
  ps.set_env = spec.env;
  ps.cwd = r.cwd;
  proc::ChildLimits limits;
  limits.timeout = std::chrono::milliseconds(static_cast<long long>(spec.timeout_s * 1000.0));
  limits.grace = std::chrono::milliseconds(5000);
  limits.max_output_bytes = 1u << 20;
  auto o = run(ps, limits);
  r.outcome = o.describe();
  r.wall_ms = o.wall_ms;
  if (o.kind == proc::ChildOutcome::Kind::exited) r.exit_code = o.exit_code;
  r.output = o.output;
  if (!o.error_text.empty()) r.output += (r.output.empty() ? "" : "\n") + o.error_text;
  judge(r, o);
  return r;
}

nlohmann::json to_json(const CommandRun& r) {
  nlohmann::json j = {{"argv", r.argv},
                      {"cwd", r.cwd},
                      {"exit_code", r.exit_code ? nlohmann::json(*r.exit_code) : nlohmann::json(nullptr)},
                      {"outcome", r.outcome},
                      {"wall_ms", r.wall_ms},
                      {"junit", r.junit_path}};
  if (r.junit)
    j["junit_counts"] = {{"tests", r.junit->tests},
                         {"failures", r.junit->failures},
                         {"errors", r.junit->errors},
                         {"skipped", r.junit->skipped},
                         {"suites", r.junit->suites}};
  j["problems"] = r.problems;
  return j;
}

}  // namespace jetgate::gate
