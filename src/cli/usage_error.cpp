// SPDX-License-Identifier: Apache-2.0
#include <iostream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/utf8.hpp"

namespace jetgate::cli {

int usage_error(const char* command, const std::string& message) {
  std::cerr << terminal_safe("jetgate " + std::string(command) + ": " + message) << "\n";
  return kExitUsage;
}

}  // namespace jetgate::cli
