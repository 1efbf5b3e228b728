// SPDX-License-Identifier: Apache-2.0
// The check every number option carries: NaN, infinities and negative zero
// are refused (core's why_not_plain_number), before any range check, which
// NaN would pass (every comparison with NaN is false).
#pragma once

#include <CLI/CLI.hpp>

namespace jetgate::cli {

CLI::Validator plain_number();

}  // namespace jetgate::cli
