// SPDX-License-Identifier: Apache-2.0
// Which probe values a fleet watches for regressions, and which way is worse, taken
// from the probe registry (registry.hpp): a speed that is better higher (bandwidth,
// tokens per second, a fraction of the bound) is worse when it drops; the sync path's
// CPU per wait (a fraction, better lower) is worse when it rises. Bounds computed from
// static facts (theoretical, expected) are not speeds in the registry and are not
// watched. `jetgate history regressions` and the Prometheus rules `jetgate init
// --kubernetes` writes both read this one list.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "jetgate/probes/registry.hpp"

namespace jetgate::probes {

std::optional<Watch> watched(std::string_view probe, std::string_view metric);

struct WatchedMetric {
  const ProbeSpec* probe = nullptr;
  const MetricSpec* metric = nullptr;
  Watch watch = Watch::drop;
};
// Every watched metric, in registry order.
std::vector<WatchedMetric> watched_metrics();

}  // namespace jetgate::probes
