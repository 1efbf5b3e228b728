// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace jetgate::facts {

// A fact that could not be established: which one, from where, and why.
struct Warning {
  std::string fact;     // JSON pointer of the fact, e.g. "/platform/tegra/l4t"
  std::string source;   // the file (as the user sees it) or call it came from
  std::string message;  // what went wrong and what to do next
};

inline nlohmann::json to_json(const Warning& w) {
  return {{"fact", w.fact}, {"source", w.source}, {"message", w.message}};
}

}  // namespace jetgate::facts
