// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/command_run.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "jetgate/core/utf8.hpp"

namespace jetgate::gate {
namespace {

namespace fsys = std::filesystem;

constexpr const char* kConfineHint =
    "command.cwd and command.junit must be relative paths inside the repository (see "
    "docs/gates.md)";

std::string quoted(const std::string& s) {
  return "\"" + to_valid_utf8(s) + "\"";
}

Error confine_error(const std::string& field, const std::string& value, const std::string& why) {
  return make_error(fmt::format("command.{} {} {}", field, quoted(value), why), "", kConfineHint);
}

// Relative, and no ".." anywhere: what the path names must not depend on
// what lies above the repository.
Status check_relative(const std::string& field, const std::string& value) {
  if (value.empty()) return confine_error(field, value, "is empty");
  fsys::path p(value);
  if (p.is_absolute())
    return confine_error(field, value,
                         "is an absolute path; it must be relative to the repository");
  for (const auto& part : p)
    if (part == "..")
      return confine_error(field, value, "contains \"..\"; it must stay inside the repository");
  return Ok{};
}

bool inside(const fsys::path& path, const fsys::path& root) {
  auto rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

// The deepest existing ancestor of path, with symbolic links resolved, must
// be inside root; the path itself, when it exists, must be a regular file and
// not a symbolic link.
Status check_report_path(const std::string& value, const fsys::path& path, const fsys::path& root) {
  std::error_code ec;
  fsys::path existing = path.parent_path();
  // symlink_status: a dangling link is something that exists, and it is refused
  // below (canonical fails), rather than skipped over.
  while (!existing.empty() && !fsys::exists(fsys::symlink_status(existing, ec)))
    existing = existing.parent_path();
  fsys::path real = fsys::canonical(existing.empty() ? root : existing, ec);
  if (ec)
    return confine_error("junit", value,
                         fmt::format("cannot be resolved at {}: {} (a dangling symbolic link?)",
                                     quoted(existing.string()), ec.message()));
  if (!inside(real, root) || !fsys::is_directory(real, ec))
    return confine_error(
        "junit", value,
        fmt::format("lies in {}, outside the repository {} (a symbolic link leads out)",
                    quoted(real.string()), quoted(root.string())));
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Ok{};
    return confine_error("junit", value,
                         fmt::format("cannot be checked: {}", std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode))
    return confine_error("junit", value,
                         "is a symbolic link; jetgate reads and removes only regular files");
  if (!S_ISREG(st.st_mode))
    return confine_error("junit", value, "exists and is not a regular file");
  return Ok{};
}

void judge(CommandRun& r, const proc::ChildOutcome& o, const CommandPaths& paths) {
  using Kind = proc::ChildOutcome::Kind;
  if (o.kind != Kind::exited) {
    r.problems.push_back(
        fmt::format("{} did not finish: {}", to_valid_utf8(r.argv.front()), r.outcome));
  } else if (o.exit_code != 0) {
    r.problems.push_back(
        fmt::format("{} exited with status {}", to_valid_utf8(r.argv.front()), o.exit_code));
  }
  // The command may have put a link where its report should be.
  if (auto st = check_report_path(paths.junit, paths.junit, paths.repo_root); !st) {
    r.problems.push_back("JUnit report: " + st.error().what + " (refused)");
    return;
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
    r.problems.push_back(
        fmt::format("{} test(s) skipped or xfailed: a gate passes only without skips", c.skipped));
}

}  // namespace

Result<CommandPaths> confine_command_paths(const policy::CommandSpec& spec,
                                           const std::string& repo_root) {
  std::error_code ec;
  fsys::path root = fsys::canonical(repo_root.empty() ? "." : repo_root, ec);
  if (ec)
    return make_error(
        fmt::format("the repository root {} cannot be used: {}", quoted(repo_root), ec.message()),
        "", "pass --repo-root an existing directory");
  const std::string cwd_value = spec.cwd.value_or(".");
  if (auto st = check_relative("cwd", cwd_value); !st) return st.error();
  if (auto st = check_relative("junit", spec.junit); !st) return st.error();
  fsys::path cwd = fsys::canonical(root / cwd_value, ec);
  if (ec) return confine_error("cwd", cwd_value, fmt::format("cannot be used: {}", ec.message()));
  if (!inside(cwd, root))
    return confine_error(
        "cwd", cwd_value,
        fmt::format("resolves to {}, outside the repository {} (a symbolic link leads out)",
                    quoted(cwd.string()), quoted(root.string())));
  if (!fsys::is_directory(cwd, ec)) return confine_error("cwd", cwd_value, "is not a directory");
  fsys::path junit = (cwd / spec.junit).lexically_normal();
  if (!junit.has_filename())
    return confine_error("junit", spec.junit, "names a directory, not a file");
  if (auto st = check_report_path(spec.junit, junit, root); !st) return st.error();
  return CommandPaths{root.string(), cwd.string(), junit.string(), std::nullopt};
}

Result<std::optional<proc::RunAs>> command_user(const policy::CommandSpec& spec,
                                                std::optional<unsigned> key_owner_uid) {
  if (!spec.user) return std::optional<proc::RunAs>();
  const std::string hint =
      "command.user runs the tests as another user while jetgate runs as "
      "root and keeps the signing key (docs/trust.md)";
  std::string why;
  auto user = proc::lookup_user(*spec.user, why);
  if (!user)
    return make_error(fmt::format("command.user {}: {}", quoted(*spec.user), why), "", hint);
  const unsigned self = static_cast<unsigned>(::geteuid());
  if (self != 0 && user->uid != self)
    return make_error(
        fmt::format("command.user {}: jetgate runs as uid {}, not as root, and cannot "
                    "run the command as another user",
                    quoted(*spec.user), self),
        "", "run jetgate as root (e.g. sudo), or remove command.user");
  if (key_owner_uid && *key_owner_uid == user->uid)
    return make_error(
        fmt::format("command.user {} owns the signing key, so the tests could read it and sign "
                    "evidence of their own",
                    quoted(*spec.user)),
        "", "give the key to root (chown root:root KEY; chmod 600 KEY)");
  return std::optional<proc::RunAs>(std::move(*user));
}

CommandRun run_command(const policy::CommandSpec& spec, const CommandPaths& paths,
                       const ProcessRunner& run,
                       const std::function<void(std::string_view)>& on_output) {
  CommandRun r;
  r.argv = spec.argv;
  r.cwd = paths.cwd;
  r.junit_path = paths.junit;
  // Confined (and not a link) when the run began; unlink never follows a link anyway.
  if (::unlink(paths.junit.c_str()) != 0 && errno != ENOENT) {
    r.outcome = "not started";
    r.problems.push_back(fmt::format("cannot remove the old JUnit report {}: {}",
                                     quoted(paths.junit), std::strerror(errno)));
    return r;
  }
  proc::ProcessSpec ps;
  ps.argv = spec.argv;
  ps.set_env = spec.env;
  ps.cwd = r.cwd;
  ps.run_as = paths.run_as;
  proc::LiveOutput live;
  live.merge_stderr = true;
  live.on_chunk = [&on_output](std::string_view chunk, bool) {
    if (on_output) on_output(chunk);
  };
  proc::ChildLimits limits;
  limits.timeout = std::chrono::milliseconds(static_cast<long long>(spec.timeout_s * 1000.0));
  limits.grace = std::chrono::milliseconds(5000);
  // The whole output goes to on_output (GATE.log); only a little is kept here.
  limits.max_output_bytes = 64u << 10;
  auto o = run(ps, limits, live);
  r.outcome = to_valid_utf8(o.describe());
  r.wall_ms = o.wall_ms;
  r.interrupted = o.kind == proc::ChildOutcome::Kind::interrupted ? o.interrupt : 0;
  if (o.kind == proc::ChildOutcome::Kind::exited) r.exit_code = o.exit_code;
  if (o.kind == proc::ChildOutcome::Kind::spawn_failed && on_output)
    on_output("[jetgate: " + o.describe() + "]\n");
  if (o.left_running > 0 && on_output)
    on_output(
        fmt::format("[jetgate: the command left {} process(es) running; killed before the "
                    "evidence was written]\n",
                    o.left_running));
  r.contained = o.contained;
  judge(r, o, paths);
  return r;
}

nlohmann::json to_json(const CommandRun& r) {
  nlohmann::json j = {
      {"argv", r.argv},
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
