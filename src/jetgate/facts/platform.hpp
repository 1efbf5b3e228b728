// SPDX-License-Identifier: Apache-2.0
// Platform facts: everything jetgate learns from files under a root (and, on
// the live machine, from uname and nvcc). The result is the "platform" object
// of the evidence schema (docs/evidence-schema.md), null where unknown.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/facts/warning.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::facts {

struct CollectOptions {
  bool show_serial = false;  // serial numbers and hostnames only when asked
  bool run_commands = true;  // live machine only: may run nvcc --version
  // Set (`--host-root DIR`): the root is the running host, mounted at DIR into
  // the container this process runs in, and own_root is this process's own /
  // (RootFs("/")). The host's facts (kernel, modules, /etc, /sys) are read
  // live under DIR; what CUDA in the container uses (device nodes, the image's
  // CUDA toolkit and libraries, its L4T packages) under own_root.
  const fs::RootFs* own_root = nullptr;
  // `--cdi-dir DIR` (repeatable): directories of CDI specs the runtime is configured to
  // read that jetgate cannot find in a configuration file (CRI-O's, a runtime started
  // with its own flag), read under the root before the configured and usual ones.
  std::vector<std::string> cdi_dirs;
};

struct PlatformReport {           // NOLINT(bugprone-exception-escape): see .clang-tidy
  nlohmann::json platform;        // the /platform object, valid UTF-8
  std::vector<Warning> warnings;  // facts that could not be read, each naming its file
  std::string root;               // the root directory as given, valid UTF-8 (for /root)
};

PlatformReport collect_platform(const fs::RootFs& root, const CollectOptions& options);

}  // namespace jetgate::facts
