// SPDX-License-Identifier: Apache-2.0
// One grammar for gate ids everywhere one is read (issue 21, class 9):
// evidence whose gate id or file name has newlines, Markdown or table syntax
// is refused, and the reason shows the id only as inert text (a quoted ASCII
// JSON string: no newline, no '|' starting a cell of its own).
#include <gtest/gtest.h>

#include <filesystem>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

const char* kBadIds[] = {"unit\n::error::x",
                         "![img](https://evil.example/x.png)",
                         "a | b",
                         "Unit",
                         "-unit",
                         "unit_x",
                         "<b>unit</b>",
                         "unit\xe2\x80\xae"};

TEST(GateIdGrammar, EvidenceWithABadGateIdIsRefusedAndShownInert) {
  for (const char* id : kBadIds) {
    SCOPED_TRACE(id);
    auto e = evidence::evidence_from_json(
        test::orin_evidence_json("2026-11-29T16:23:05Z", {{"gate", id}}));
    ASSERT_FALSE(e.ok());
    std::string msg = e.error().message();
    EXPECT_NE(msg.find("invalid gate id"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find("\xe2\x80\xae"), std::string::npos) << msg;
  }
}

TEST(GateIdGrammar, FilesNamedOutsideTheGrammarAreSkippedUnread) {
  test::TempDir t;
  auto good = test::orin_evidence_json();
  t.write("ev/jetson-cuda-runtime.json", good.dump());
  for (const char* name : {"x\n::error::y.json", "![img](u).json", "a | b.json", "Jetson.json"})
    t.write(std::string("ev/") + name, good.dump());
  auto set = claims::load_evidence_dirs({t.path("ev")}, claims::JudgeRules{});
  ASSERT_TRUE(set.ok()) << set.error().message();
  EXPECT_EQ(set->loaded.size(), 1u);
  ASSERT_EQ(set->skipped.size(), 4u);
  for (const auto& s : set->skipped) {
    EXPECT_NE(s.why.find("is not GATE.json for a gate id"), std::string::npos) << s.why;
    EXPECT_EQ(s.why.find('\n'), std::string::npos) << s.why;
    EXPECT_EQ(s.gate, "");
  }
}

TEST(GateIdGrammar, RequireGateAndRunRefuseIdsOutsideTheGrammar) {
  for (const char* id : kBadIds) {
    SCOPED_TRACE(id);
    auto r =
        test::run_jetgate({"check", "--policy", test::source_dir() + "/data/default-policy.json",
                           "--require-gate", id});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("invalid gate id"), std::string::npos) << r.err;
    auto run = test::run_jetgate({"run", id, "--dry-run"});
    EXPECT_EQ(run.exit_code, 2) << run.err;
  }
}

}  // namespace
}  // namespace jetgate
