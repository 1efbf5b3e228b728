// Placeholder until the gate/claims work lands: registered so --help lists it.
#include <iostream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"

namespace jetgate::cli {

Command add_support_command(CLI::App& app) {
  auto* sub = app.add_subcommand("support", "(not available in this build yet)");
  return {sub, [] {
            std::cerr << "jetgate support: not available in this build yet\n";
            return kExitUsage;
          }};
}

}  // namespace jetgate::cli
