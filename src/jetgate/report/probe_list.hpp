// SPDX-License-Identifier: Apache-2.0
// The probe registry for people and programs: `jetgate probe --list` prints it, and
// docs/probes.md's metric table is this file's Markdown (a test compares them), so the
// metrics a policy may name are listed in one place that cannot drift.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace jetgate::report {

// {"schema_version": 1, "probes": [{"id", "kind", "what", "by_default",
//   "measures_speed", "metrics": [{"name", "unit", "better", "speed", "what"}]}]}
nlohmann::json probe_list_json();
std::string render_probe_list_text();
std::string render_probe_list_markdown();

}  // namespace jetgate::report
