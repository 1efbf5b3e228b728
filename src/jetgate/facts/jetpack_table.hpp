// SPDX-License-Identifier: Apache-2.0
// The L4T -> JetPack table (data/l4t-jetpack.json, compiled into the binary):
// every public L4T release from R21 to R39 and the JetPack release(s) that
// shipped it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

struct JetpackRelease {
  std::string l4t;  // "36.4.3"
  std::vector<std::string>
      jetpack;         // {"6.2"}; {"3.2.1", "3.3"} when ambiguous; {} for a BSP-only release
  std::string kind;    // ga, point, respin, dp, ea, pre, bsp
  std::string source;  // where the pairing is documented

  bool ambiguous() const { return jetpack.size() > 1; }
  // "6.2", "6.0 DP", "3.2.1 | 3.3"; empty for a BSP-only release.
  std::string display() const;
};

// The numeric part of a JetPack value: "6.0 DP" -> "6.0", "6.1 (rev. 1)" -> "6.1".
std::string jetpack_number(std::string_view value);
// The stage marker of a JetPack value, normalised: "6.0 DP" -> "DP",
// "6.1 (rev. 1)" -> "REV1", "7.0 GA" and "7.0" -> "" (GA is the default).
std::string jetpack_marker(std::string_view value);

class JetpackTable {
 public:
  // Parses the table's JSON text. Errors name the row that is wrong.
  static Result<JetpackTable> parse(std::string_view json_text);

  const std::vector<JetpackRelease>& releases() const { return releases_; }
  const JetpackRelease* find(std::string_view l4t) const;
  // The highest L4T release the table knows ("39.2.1").
  const std::string& newest_l4t() const { return newest_; }

 private:
  std::vector<JetpackRelease> releases_;
  std::string newest_;
};

// The table compiled into jetgate (data/l4t-jetpack.json). An Error only when
// the embedded file is missing or malformed, which the unit tests rule out.
const Result<JetpackTable>& builtin_jetpack_table();

}  // namespace jetgate::facts
