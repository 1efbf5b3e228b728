// SPDX-License-Identifier: Apache-2.0
#include "cli/number_options.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "jetgate/core/json_text.hpp"

namespace jetgate::cli {
namespace {

// [+-]? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?  — a number as people write it.
// CLI11 reads integers with strtoll(..., 0): without this, "0x1e" would be 30, "010"
// would be 8 (octal), and leading blanks would pass.
bool is_decimal(const std::string& s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i - from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  const std::size_t first = i;
  const std::size_t n = digits();
  if (n == 0 || (n > 1 && s[first] == '0')) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

CLI::Validator plain_number() {
  return CLI::Validator(
      [](const std::string& value) {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (std::string why = why_not_plain_number(v); !why.empty() && end != value.c_str())
          return "the value " + quoted_text(value) + " is " + why;
        if (!is_decimal(value))
          return "the value " + quoted_text(value) +
                 " is not a decimal number (write it in digits, e.g. 30 or 0.25: no hex, no "
                 "leading zeros, no blanks)";
        return std::string();
      },
      "NUMBER");
}

}  // namespace jetgate::cli
