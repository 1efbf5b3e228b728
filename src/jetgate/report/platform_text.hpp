// SPDX-License-Identifier: Apache-2.0
// The readable `jetgate probe` report, grouped as jetson_release groups it:
// hardware, platform, libraries, GPU driver stack.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "jetgate/record/record.hpp"

namespace jetgate::report {

// The platform facts of a probe document or evidence (record::read).
std::string render_platform_text(const record::Record& r);
// One line per warning: "warning: SOURCE: MESSAGE".
std::string render_warnings_text(const nlohmann::json& warnings);

}  // namespace jetgate::report
