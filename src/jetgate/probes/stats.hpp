// SPDX-License-Identifier: Apache-2.0
// Order statistics of recorded timings. Pure functions: the probes feed them
// live samples and the tests feed them recorded ones.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

namespace jetgate::probes {

// The p-th percentile (0 <= p <= 100), linear interpolation between the two
// closest ranks (numpy's default, so figures compare with Python tools).
// NaN for no samples; p is clamped into [0, 100].
double percentile(std::vector<double> samples, double p);
double median(std::vector<double> samples);

struct Summary {
  std::size_t count = 0;
  double min = 0, median = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
};
// All fields NaN (count 0) for no samples.
Summary summarize(const std::vector<double>& samples);
nlohmann::json to_json(const Summary& s);

}  // namespace jetgate::probes
