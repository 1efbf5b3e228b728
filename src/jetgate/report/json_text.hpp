// JSON as text, for every JSON document jetgate prints. nlohmann's dump()
// throws on a string that is not UTF-8 (a file name, a /proc line, a gate id
// cut mid-character), which would abort the process; here such bytes become
// U+FFFD, so the output is always valid JSON and the exit code follows the
// 0/1/2 contract. Readers who need the exact bytes of a name find them on
// disk; the replacement is documented in docs/claims.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace jetgate::report {

// The document indented by `indent` spaces (-1: one line), never throwing.
std::string json_text(const nlohmann::json& document, int indent = 2);

}  // namespace jetgate::report
