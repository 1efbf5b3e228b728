// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/random_name.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

namespace jetgate::fs {

std::string random_hex(int digits) {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  std::string hex = fmt::format("{:016x}", gen());
  return hex.substr(0, static_cast<std::size_t>(std::clamp(digits, 1, 16)));
}

}  // namespace jetgate::fs
