// SPDX-License-Identifier: Apache-2.0
// The one status vocabulary of jetgate, DCGM's: every probe, every check row
// of a gate (requirement, probe threshold, command, test case), every gate
// verdict of `check`, `support` and `summary` is PASS, WARN, FAIL, SKIP or
// NOT_RUN. The only other vocabulary left is the evidence file's top-level
// "status" (passed | failed | not_run), which OBLITERATUS' runner writes and
// reads; evidence::to_status() maps it here (docs/evidence-schema.md).
#pragma once

#include <optional>
#include <string_view>

namespace jetgate {

enum class Outcome {
  pass,     // measured or checked, and it holds
  warn,     // it holds, with something worth a look (the reason says what)
  fail,     // it does not hold
  skip,     // it could not be answered here (no driver, no device, requirement unmet)
  not_run,  // it was not attempted (not built in, not asked, no evidence)
};

const char* to_string(Outcome s);  // "PASS", "WARN", "FAIL", "SKIP", "NOT_RUN"
std::optional<Outcome> status_from_string(std::string_view s);

// PASS and WARN hold; FAIL, SKIP and NOT_RUN mean the question was not answered yes.
constexpr bool holds(Outcome s) {
  return s == Outcome::pass || s == Outcome::warn;
}

// The worse of two statuses, for rolling rows up into one: FAIL > NOT_RUN > SKIP > WARN > PASS.
Outcome worst(Outcome a, Outcome b);

}  // namespace jetgate
