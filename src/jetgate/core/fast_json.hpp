// SPDX-License-Identifier: Apache-2.0
// The fast way to parse_json_text (json_text.hpp) for the documents jetgate
// reads by the hundred thousand (evidence, DSSE envelopes, signed payloads):
// simdjson parses, and its DOM becomes the same nlohmann::json that
// parse_json_text would build. Whatever simdjson refuses, and anything in
// doubt (nesting deeper than kMaxJsonDepth, -0.0, integers beyond 64 bits, a
// byte-order mark), goes to parse_json_text itself, so values and error
// messages are always parse_json_text's. Builds without simdjson
// (JETGATE_WITH_SIMDJSON=OFF: the static release and aarch64 builds) take
// parse_json_text every time. docs/claims.md ("Many evidence files") says why simdjson.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate {

// Whether this build has the simdjson path.
bool fast_json_available();

// Exactly parse_json_text(text, source) (default depth): the same value, or the same error.
Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source);

// Members a reader never looks at, left out of a parsed document: each path
// names object members from the root ("*" is any member), e.g. {"probes",
// "*", "details"}. Inside a member left out, the strings under identifying
// keys (core/identifying_keys.hpp), and the objects and arrays that lead to
// them, stay where they were; the member goes when nothing stays.
struct JsonPrune {
  std::vector<std::vector<std::string>> paths;
};

// The document without what prune leaves out.
void prune_json(nlohmann::json& doc, const JsonPrune& prune);

// parse_json_fast(text, source) then prune_json(prune), exactly; the fast
// path never builds what it leaves out.
Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source,
                                       const JsonPrune& prune);

// The simdjson half alone: the value parse_json_text would give, or nullopt
// when simdjson refuses text or the result is in doubt (never a different
// value). Always nullopt without simdjson. For tests and the differential fuzzer.
std::optional<nlohmann::json> parse_json_simd(std::string_view text,
                                              const JsonPrune* prune = nullptr);

}  // namespace jetgate
