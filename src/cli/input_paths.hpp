// SPDX-License-Identifier: Apache-2.0
// Paths and streams the CLI reads that are named on the command line, checked
// before anything runs so a usage problem is reported as one (exit 2) with
// the option that caused it.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::cli {

// --policy must name a regular file: its location is where the repository
// root and its coverage_paths are found, so stdin ("-", /dev/stdin,
// /dev/fd/N, /proc/self/fd/N), devices and directories are refused. An empty
// value is a usage error of its own (not "a directory").
Status check_policy_path(const std::string& path);

// --cdi-dir DIR (repeatable, probe and run): a directory of CDI specs the container
// runtime reads, an absolute path on the machine whose facts are read (under --root or
// --host-root there).
void add_cdi_dir_option(CLI::App* sub, std::vector<std::string>& dirs);

// All of stdin, at most max_bytes (an Error beyond, naming "<stdin>").
Result<std::string> read_stdin(std::size_t max_bytes);

}  // namespace jetgate::cli
