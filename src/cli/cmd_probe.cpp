#include <iostream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"

namespace jetgate::cli {

Command add_probe_command(CLI::App& app) {
  auto* sub = app.add_subcommand("probe", "Report platform facts (placeholder)");
  return {sub, [] { return kExitUsage; }};
}

}  // namespace jetgate::cli
