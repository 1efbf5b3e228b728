// SPDX-License-Identifier: Apache-2.0
#include "cli/number_options.hpp"

#include <cstdlib>
#include <string>

#include "jetgate/core/json_text.hpp"

namespace jetgate::cli {

CLI::Validator plain_number() {
  return CLI::Validator(
      [](const std::string& value) {
        char* end = nullptr;
        double v = std::strtod(value.c_str(), &end);
        if (end == value.c_str()) return std::string();  // not a number: CLI11 says so itself
        std::string why = why_not_plain_number(v);
        return why.empty() ? why : "the value " + quoted_text(value) + " is " + why;
      },
      "NUMBER");
}

}  // namespace jetgate::cli
