// SPDX-License-Identifier: Apache-2.0
// Gate ids name evidence files (DIR/GATE.json), so they are validated before
// any path is built from one: no "..", no "/", no hidden files, bounded length.
// It is the one grammar for a gate id everywhere one is read: policy gates and
// waivers, evidence documents and their file names, --require-gate and
// `run GATE`; what is outside it is refused, the id shown as a quoted ASCII
// JSON string (no newline, Markdown or table syntax survives as itself).
#pragma once

#include <cstddef>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::evidence {

inline constexpr std::size_t kMaxGateIdLength = 64;

// [a-z0-9][a-z0-9-]*, at most kMaxGateIdLength characters.
bool is_valid_gate_id(std::string_view id);
// The same, as an Error naming `where` that says what a valid id looks like.
Status validate_gate_id(std::string_view id, const std::string& where);

}  // namespace jetgate::evidence
