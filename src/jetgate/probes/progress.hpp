// SPDX-License-Identifier: Apache-2.0
// Probes never print (a probe measures, a report shows). A caller that wants
// to show progress while probes run (a 20-second bandwidth test looks like a
// hang otherwise) passes these callbacks; either may be empty.
#pragma once

#include <functional>
#include <string_view>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

struct ProbeProgress {
  std::function<void(std::string_view probe_id)> started;
  std::function<void(const ProbeResult& result)> finished;

  void start(std::string_view id) const {
    if (started) started(id);
  }
  void finish(const ProbeResult& r) const {
    if (finished) finished(r);
  }
};

}  // namespace jetgate::probes
