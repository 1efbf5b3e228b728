// SPDX-License-Identifier: Apache-2.0
// The real machine behind gate::RunDeps (live_run_deps.cpp): facts::collect_platform,
// probes::collect_cuda, the Python probe, child processes, git and the clock. Tests
// pass their own RunDeps to gate::run_gate instead.
#pragma once

#include <string>
#include <vector>

#include "jetgate/gate/gate_runner.hpp"

namespace jetgate::cli {

// host_root: `run --host-root DIR`: the platform facts are the host's, read live
// through DIR (cli/host_root.hpp); the root the runner passes is then unused.
// cdi_dirs: `--cdi-dir` (facts::CollectOptions::cdi_dirs).
gate::RunDeps live_run_deps(const std::string& host_root = "",
                            const std::vector<std::string>& cdi_dirs = {});

}  // namespace jetgate::cli
