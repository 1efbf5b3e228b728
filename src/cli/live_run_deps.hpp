// SPDX-License-Identifier: Apache-2.0
// The real machine behind gate::RunDeps (live_run_deps.cpp): facts::collect_platform,
// probes::collect_cuda, the Python probe, child processes, git and the clock. Tests
// pass their own RunDeps to gate::run_gate instead.
#pragma once

#include "jetgate/gate/gate_runner.hpp"

namespace jetgate::cli {

gate::RunDeps live_run_deps();

}  // namespace jetgate::cli
