// SPDX-License-Identifier: Apache-2.0
// The readable `jetgate probe` report, grouped as jetson_release groups it:
// hardware, platform, libraries, GPU driver stack.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace jetgate::report {

// platform: the /platform object of the evidence schema.
std::string render_platform_text(const nlohmann::json& platform);
// One line per warning: "warning: SOURCE: MESSAGE".
std::string render_warnings_text(const nlohmann::json& warnings);

}  // namespace jetgate::report
