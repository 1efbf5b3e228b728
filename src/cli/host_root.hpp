// SPDX-License-Identifier: Apache-2.0
// `probe --host-root DIR` and `run --host-root DIR`: the live host's facts read
// through its mount in a pod (fs/host_root.hpp says what is refused), with the
// container image the environment names (environment.cpp, JETGATE_IMAGE).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "jetgate/core/result.hpp"
#include "jetgate/facts/platform.hpp"

namespace jetgate::cli {

struct HostRootFacts {
  facts::PlatformReport report;  // warnings include what makes the mount less than live
  nlohmann::json host_mount;     // the /host_mount object
};

// An Error (exit 2) when DIR is refused: not a directory, a recording, no procfs.
Result<HostRootFacts> collect_host_root(const std::string& dir,
                                        const facts::CollectOptions& options);

}  // namespace jetgate::cli
