// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/watched.hpp"

namespace jetgate::probes {
namespace {

// The registry's entry says it (MetricSpec::watch); nothing is worked out from names here.
std::optional<Watch> watch_of(const ProbeSpec&, const MetricSpec& m) {
  return m.watch;
}

}  // namespace

std::optional<Watch> watched(std::string_view probe, std::string_view metric) {
  const ProbeSpec* p = find_probe_spec(probe);
  if (!p) return std::nullopt;
  const MetricSpec* m = find_metric(*p, metric);
  if (!m) return std::nullopt;
  return watch_of(*p, *m);
}

std::vector<WatchedMetric> watched_metrics() {
  std::vector<WatchedMetric> out;
  for (const auto& p : probe_registry())
    for (const auto& m : p.metrics)
      if (auto w = watch_of(p, m)) out.push_back({&p, &m, *w});
  return out;
}

}  // namespace jetgate::probes
