// SPDX-License-Identifier: Apache-2.0
// Progress on stderr while probes run: a terminal user or a CI log sees which
// probe is running instead of a silent pause. Only where someone watches:
// stderr is a terminal, or CI is set (GitHub Actions, GitLab and most others
// set it); --quiet silences it.
#pragma once

#include "jetgate/probes/progress.hpp"

namespace jetgate::cli {

bool progress_wanted(bool quiet);
// Prints "jetgate: probe ID: running" and "jetgate: probe ID: STATUS (N.N s)".
probes::ProbeProgress stderr_progress();

}  // namespace jetgate::cli
