// SPDX-License-Identifier: Apache-2.0
// Each subcommand lives in its own file and registers itself on the app; its
// action runs after parsing and returns the process exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace jetgate::cli {

using Action = std::function<int()>;

struct Command {
  CLI::App* app = nullptr;
  Action run;
};

Command add_probe_command(CLI::App& app);    // cmd_probe.cpp
Command add_run_command(CLI::App& app);      // cmd_run.cpp
Command add_check_command(CLI::App& app);    // cmd_check.cpp
Command add_support_command(CLI::App& app);  // cmd_support.cpp
Command add_summary_command(CLI::App& app);  // cmd_summary.cpp
Command add_keygen_command(CLI::App& app);   // cmd_keygen.cpp

Command add_container_command(CLI::App& app);  // cmd_container.cpp
Command add_init_command(CLI::App& app);       // cmd_init.cpp
Command add_history_command(CLI::App& app);    // cmd_history.cpp

// Prints "jetgate COMMAND: MESSAGE" (terminal-safe) on stderr and returns the
// usage exit status (2): how every subcommand reports unusable input.
int usage_error(const char* command, const std::string& message);  // usage_error.cpp

}  // namespace jetgate::cli
