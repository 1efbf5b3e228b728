// SPDX-License-Identifier: Apache-2.0
// claims/evidence_verdict: every verdict state has one row (its code, its status
// in the one vocabulary, its words), and a state without a row can never read
// as fresh green. A state added to GateState without its row does not compile
// (the table is a switch without a default, built with -Werror); this test
// holds what the table says at run time.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "jetgate/claims/evidence_verdict.hpp"

namespace jetgate::claims {
namespace {

TEST(EvidenceVerdict, EveryStateHasOneRow) {
  std::set<std::string> codes, words;
  int passing = 0;
  const int last = static_cast<int>(GateState::untrusted);
  for (int i = 0; i <= last; ++i) {
    const auto s = static_cast<GateState>(i);
    const std::string code = to_string(s);
    EXPECT_NE(code, "unknown_state") << "state " << i << " has no row";
    EXPECT_TRUE(codes.insert(code).second) << code << " is the code of two states";
    EXPECT_TRUE(words.insert(describe(s)).second) << describe(s) << " describes two states";
    if (status_of(s) == Outcome::pass) ++passing;
  }
  EXPECT_EQ(passing, 1) << "only fresh green is PASS";
  EXPECT_EQ(status_of(GateState::fresh_green), Outcome::pass);
  EXPECT_EQ(status_of(GateState::missing), Outcome::not_run);
  EXPECT_EQ(status_of(GateState::not_run), Outcome::not_run);
  // A value outside the table (a state added without a row, were the build
  // to let it through) is a failure, never the first row's fresh green.
  const auto unknown = static_cast<GateState>(last + 1);
  EXPECT_EQ(status_of(unknown), Outcome::fail);
  EXPECT_STRNE(to_string(unknown), "fresh_green");
}

}  // namespace
}  // namespace jetgate::claims
