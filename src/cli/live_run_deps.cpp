// SPDX-License-Identifier: Apache-2.0
// The real machine behind gate::RunDeps: the one place the CLI wires live facts, probes,
// processes, git and the clock into the gate runner.
#include "cli/live_run_deps.hpp"

#include <fmt/format.h>

#include "cli/host_root.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/gate/gate_runner.hpp"
#include "jetgate/proc/interrupt.hpp"

namespace jetgate::cli {
namespace {

gate::PlatformFacts live_platform(const std::string& root_dir, const facts::CollectOptions& o) {
  gate::PlatformFacts out;
  auto root = fs::RootFs::open(root_dir);
  if (!root) {
    out.platform = nullptr;
    out.warnings.push_back({"/platform", root_dir,
                            fmt::format("platform facts unavailable: {}", root.error().message())});
    return out;
  }
  auto report = facts::collect_platform(*root, o);
  out.platform = std::move(report.platform);
  out.warnings = report.warnings;
  return out;
}

gate::PlatformFacts host_platform(const std::string& dir, const facts::CollectOptions& o) {
  gate::PlatformFacts out;
  auto facts = collect_host_root(dir, o);
  if (!facts) {
    out.platform = nullptr;
    out.warnings.push_back(
        {"/platform", dir, fmt::format("platform facts unavailable: {}", facts.error().message())});
    return out;
  }
  out.platform = std::move(facts->report.platform);
  out.warnings = facts->report.warnings;
  out.root = facts->report.root;
  out.host_mount = std::move(facts->host_mount);
  return out;
}

}  // namespace

gate::RunDeps live_run_deps(const std::string& host_root,
                            const std::vector<std::string>& cdi_dirs) {
  gate::RunDeps d;
  facts::CollectOptions o;
  o.cdi_dirs = cdi_dirs;
  if (host_root.empty())
    d.platform = [o](const std::string& root) { return live_platform(root, o); };
  else
    d.platform = [host_root, o](const std::string&) { return host_platform(host_root, o); };
  d.cuda = probes::collect_cuda;
  d.python = probes::probe_python_runtime;
  d.process = proc::run_process;
  d.git_sha = evidence::resolve_git_sha_live;
  d.git_state = evidence::read_git_state_live;
  d.interrupted = proc::interrupt_signal;
  d.now = evidence::utc_timestamp_now;
  return d;
}

}  // namespace jetgate::cli
