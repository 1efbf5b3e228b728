// SPDX-License-Identifier: Apache-2.0
// What the CLI reads from the machine it runs on, for the reports: the core library
// never reads the environment, the host name or the user database itself, so every
// renderer can be tested with the values given to it.
#pragma once

#include <optional>
#include <string>

#include "jetgate/report/sanitize.hpp"

namespace jetgate::cli {

// GITHUB_ACTIONS=true: workflow-command annotations are printed.
bool github_actions();

// JETGATE_IMAGE: the container image jetgate runs in, as the pod's manifest
// sets it (`env: [{name: JETGATE_IMAGE, value: <the image>}]`), for --host-root's
// /host_mount/image; nullopt when unset, empty or longer than 512 bytes.
std::optional<std::string> container_image();
inline constexpr const char* kContainerImageVariable = "JETGATE_IMAGE";

// This machine's host name (gethostname), "" when it has none.
std::string host_name();

// This machine's host name and user names, which the issue body
// hides like a secret.
report::SanitizeOptions sanitize_options_for_this_machine();

}  // namespace jetgate::cli
