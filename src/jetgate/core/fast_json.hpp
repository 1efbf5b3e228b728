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

#include <memory>
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

// The members a reader looks at, kept from a parsed document; everything else
// is left out. Each path names members from the root; "*" is any member of an
// object or any element of an array, e.g. {"probes", "*", "status"}. A value
// a path ends at is kept whole. On the way there an object keeps only the
// members that lead on (itself kept, even when none do), an array keeps every
// element (so indices stay), each filtered alike, and any other value is kept
// as it is: a reader that asks whether something is there, is an object or
// holds a key gets the answer it would get from the whole document.
class JsonKeep {
 public:
  explicit JsonKeep(std::vector<std::vector<std::string>> paths);
  std::vector<std::vector<std::string>> paths;

  struct Step;  // the paths as a tree (fast_json.cpp)
  const Step& root() const { return *root_; }

 private:
  std::shared_ptr<Step> root_;
};

// The document with only what keep names.
void keep_json(nlohmann::json& doc, const JsonKeep& keep);

// parse_json_fast(text, source) then keep_json(keep), exactly; the fast path
// never builds what it leaves out.
Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source,
                                       const JsonKeep& keep);

// The simdjson half alone: the value parse_json_text would give, or nullopt
// when simdjson refuses text or the result is in doubt (never a different
// value). Always nullopt without simdjson. For tests and the differential fuzzer.
std::optional<nlohmann::json> parse_json_simd(std::string_view text,
                                              const JsonKeep* keep = nullptr);

}  // namespace jetgate
