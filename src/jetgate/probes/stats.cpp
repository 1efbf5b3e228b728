// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace jetgate::probes {

namespace {
constexpr double kNoSample = std::numeric_limits<double>::quiet_NaN();

// samples must be sorted and non-empty.
double sorted_percentile(const std::vector<double>& sorted, double p) {
  p = std::clamp(p, 0.0, 100.0);
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}
}  // namespace

double percentile(std::vector<double> samples, double p) {
  if (samples.empty() || std::isnan(p)) return kNoSample;
  std::sort(samples.begin(), samples.end());
  return sorted_percentile(samples, p);
}

double median(std::vector<double> samples) {
  return percentile(std::move(samples), 50.0);
}

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) {
    s.min = s.median = s.p90 = s.p99 = s.max = s.mean = kNoSample;
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = sorted_percentile(sorted, 50);
  s.p90 = sorted_percentile(sorted, 90);
  s.p99 = sorted_percentile(sorted, 99);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  return s;
}

nlohmann::json to_json(const Summary& s) {
  auto num = [](double v) -> nlohmann::json {
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  return {{"count", s.count},  {"min", num(s.min)}, {"median", num(s.median)}, {"p90", num(s.p90)},
          {"p99", num(s.p99)}, {"max", num(s.max)}, {"mean", num(s.mean)}};
}

}  // namespace jetgate::probes
