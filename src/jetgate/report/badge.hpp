// SPDX-License-Identifier: Apache-2.0
// A shields.io endpoint badge (https://shields.io/badges/endpoint-badge) from
// the support matrix: "Jetson | 2 platforms" in green while fresh green
// evidence backs a claim, "Jetson | no support claimed" in grey otherwise.
#pragma once

#include <nlohmann/json.hpp>

#include "jetgate/claims/support_matrix.hpp"

namespace jetgate::report {

inline constexpr const char* kJetsonBadgeLabel = "Jetson";

// {"schemaVersion": 1, "label", "message", "color"}. Under kJetsonBadgeLabel
// only Jetson platforms count; under any other label every platform does.
nlohmann::json support_badge(const claims::SupportMatrix& matrix, const std::string& label);

}  // namespace jetgate::report
