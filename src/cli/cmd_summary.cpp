// Placeholder until the gate/claims work lands: registered so --help lists it.
#include <iostream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"

namespace jetgate::cli {

Command add_summary_command(CLI::App& app) {
  auto* sub = app.add_subcommand("summary", "(not available in this build yet)");
  return {sub, [] {
            std::cerr << "jetgate summary: not available in this build yet\n";
            return kExitUsage;
          }};
}

}  // namespace jetgate::cli
