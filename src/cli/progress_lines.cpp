// SPDX-License-Identifier: Apache-2.0
#include "cli/progress_lines.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "jetgate/core/utf8.hpp"

namespace jetgate::cli {

bool progress_wanted(bool quiet) {
  if (quiet) return false;
  const char* ci = std::getenv("CI");
  return ::isatty(STDERR_FILENO) == 1 || (ci != nullptr && *ci != '\0');
}

probes::ProbeProgress stderr_progress() {
  probes::ProbeProgress p;
  p.started = [](std::string_view id) {
    std::cerr << "jetgate: probe " << terminal_safe(id) << ": running" << std::endl;
  };
  p.finished = [](const probes::ProbeResult& r) {
    std::cerr << fmt::format("jetgate: probe {}: {} ({:.1f} s)", terminal_safe(r.id),
                             probes::to_string(r.status), r.duration_ms / 1000.0)
              << std::endl;
  };
  return p;
}

}  // namespace jetgate::cli
