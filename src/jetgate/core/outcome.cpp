// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/outcome.hpp"

namespace jetgate {

const char* to_string(Outcome s) {
  switch (s) {
    case Outcome::pass:
      return "PASS";
    case Outcome::warn:
      return "WARN";
    case Outcome::fail:
      return "FAIL";
    case Outcome::skip:
      return "SKIP";
    case Outcome::not_run:
      return "NOT_RUN";
  }
  return "NOT_RUN";
}

std::optional<Outcome> status_from_string(std::string_view s) {
  for (auto st : {Outcome::pass, Outcome::warn, Outcome::fail, Outcome::skip, Outcome::not_run})
    if (s == to_string(st)) return st;
  return std::nullopt;
}

namespace {
int severity(Outcome s) {
  switch (s) {
    case Outcome::pass:
      return 0;
    case Outcome::warn:
      return 1;
    case Outcome::skip:
      return 2;
    case Outcome::not_run:
      return 3;
    case Outcome::fail:
      return 4;
  }
  return 4;
}
}  // namespace

Outcome worst(Outcome a, Outcome b) {
  return severity(a) >= severity(b) ? a : b;
}

}  // namespace jetgate
