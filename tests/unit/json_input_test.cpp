// SPDX-License-Identifier: Apache-2.0
// Outside JSON (policy, evidence): positions in errors, bounded nesting,
// integers that never wrap, messages that never echo raw control bytes, and
// misspelt keys that are errors with a suggestion.
#include <gtest/gtest.h>

#include <string>

#include "jetgate/core/did_you_mean.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/policy/waivers.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

std::string deep(std::size_t levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

TEST(JsonInput, SyntaxErrorsNameFileLineAndColumn) {
  auto r = parse_json_text("{\n  \"a\": 1,\n  \"b\": tru\n}", "ci/policy.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "ci/policy.json:3:11") << r.error().message();
  EXPECT_NE(r.error().what.find("not valid JSON"), std::string::npos);
  auto empty = parse_json_text("", "e.json");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().what.find("empty"), std::string::npos) << empty.error().message();
}

TEST(JsonInput, NestingIsBoundedBeforeParsingWithThePosition) {
  EXPECT_TRUE(parse_json_text(deep(64), "ok.json").ok());
  auto r = parse_json_text(deep(200000), "deep.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "deep.json:1:65");
  EXPECT_NE(r.error().what.find("nested deeper than 64 levels"), std::string::npos);
  // Brackets inside strings are text, not nesting.
  EXPECT_TRUE(parse_json_text("{\"k\": \"" + std::string(1000, '[') + "\\\"]\"}", "s.json").ok());
}

// A number beyond a double's range made the parser throw out_of_range (not
// parse_error), which nothing caught: any JSON input (policy, evidence, an
// envelope, jetgate-root.json) ended the process. Found by fuzz_dsse_envelope.
TEST(JsonInput, NumbersBeyondADoubleAreUnusableInputWithThePosition) {
  auto r = parse_json_text("{\"a\": \"1e999\",\n \"b\": [1, -2e400]}", "n.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "n.json:2:11");
  EXPECT_NE(r.error().what.find("too large for a double"), std::string::npos) << r.error().what;
  auto fuzzed = parse_json_text(
      "{\"payload\":333333333333333333333333333333e33333333{\"payload\": \"ewog\"}", "e.json");
  ASSERT_FALSE(fuzzed.ok());
  EXPECT_EQ(fuzzed.error().where, "e.json:1:12");
  EXPECT_TRUE(parse_json_text("[1e308, 1e-400, 0.5]", "ok.json").ok());
  // -1e-400 underflows to negative zero, which no input may carry (issue 21, class 7).
  EXPECT_FALSE(parse_json_text("[-1e-400]", "z.json").ok());
}

TEST(JsonInput, IntegersNeverWrapIntoRange) {
  using nlohmann::json;
  EXPECT_EQ(integer_in_range(json(1), 1, 1), 1);
  EXPECT_EQ(integer_in_range(json::parse("4294967297"), 1, 1), std::nullopt);
  EXPECT_EQ(integer_in_range(json::parse("18446744073709551615"), 0, INT64_MAX), std::nullopt);
  EXPECT_EQ(integer_in_range(json::parse("9223372036854775807"), 0, INT64_MAX), INT64_MAX);
  EXPECT_EQ(integer_in_range(json::parse("-1"), 0, 10), std::nullopt);
  EXPECT_EQ(integer_in_range(json(1.0), 0, 10), std::nullopt);
  EXPECT_EQ(integer_in_range(json("1"), 0, 10), std::nullopt);
}

TEST(JsonInput, QuotedTextIsAsciiAndCut) {
  EXPECT_EQ(quoted_text("requries"), "\"requries\"");
  // Bidi override and escape sequences become visible escapes, not terminal control.
  EXPECT_EQ(quoted_text("a\u202Eb\x1b[31m"), "\"a\\u202eb\\u001b[31m\"");
  // Invalid UTF-8 and a multi-byte character cut in the middle never throw.
  EXPECT_NO_THROW(quoted_text(std::string("\xff\xfe", 2)));
  EXPECT_NO_THROW(quoted_text("\xc3\xa9\xc3\xa9", 3));
  EXPECT_EQ(quoted_text(std::string(100, 'x'), 4), "\"xxxx\"...");
  EXPECT_NO_THROW(dump_json(nlohmann::json(std::string("\xff", 1))));
}

TEST(DidYouMean, NearKeysAreSuggestedFarOnesAreNot) {
  std::vector<std::string> keys = {"arch",     "is_tegra", "l4t",    "cuda",
                                   "requires", "probes",   "command"};
  EXPECT_EQ(edit_distance("requries", "requires"), 1u);  // a swap of neighbours is one edit
  EXPECT_EQ(closest_match("requries", keys), "requires");
  EXPECT_EQ(closest_match("comand", keys), "command");
  EXPECT_EQ(closest_match("zzzzzz", keys), std::nullopt);
  EXPECT_EQ(did_you_mean("probs", keys), " (did you mean \"probes\"?)");
  EXPECT_EQ(did_you_mean("prob", keys), "");  // two edits in four letters is too far to guess
  EXPECT_EQ(did_you_mean("x", {}), "");
}

std::string policy_with_gate(const std::string& gate_json, const std::string& top_extra = "") {
  return R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
             "maximum_evidence_age_days": 9)" +
         top_extra + R"(, "gates": [)" + gate_json + "]}";
}

std::string issues_of(const policy::LoadedPolicy& p) {
  std::string out;
  for (const auto& i : p.issues) out += i.line() + "\n";
  return out;
}

TEST(StrictPolicy, AMisspeltKeyAnywhereIsAnErrorWithASuggestion) {
  struct Case {
    std::string text, expect;
  } cases[] = {
      {policy_with_gate(
           R"({"id": "g", "requries": {"arch": "aarch64"}, "probes": [{"probe": "launch", "status": "PASS"}]})"),
       "g: gate: unknown key \"requries\" (did you mean \"requires\"?)"},
      {policy_with_gate(
           R"({"id": "g", "requires": {"arhc": "aarch64"}, "probes": [{"probe": "launch", "status": "PASS"}]})"),
       "g: requires: unknown key \"arhc\" (did you mean \"arch\"?)"},
      {policy_with_gate(
           R"({"id": "g", "requires": {"l4t": {"mni": "36"}}, "probes": [{"probe": "launch", "status": "PASS"}]})"),
       "g: requires.l4t: unknown key \"mni\" (did you mean \"min\"?)"},
      {policy_with_gate(
           R"({"id": "g", "probes": [{"probe": "bandwidth", "metric": "d2d_gbps", "mni": 5}]})"),
       "g: probes[0]: unknown key \"mni\" (did you mean \"min\"?)"},
      {policy_with_gate(
           R"({"id": "g", "command": {"argv": ["true"], "junit": "r.xml", "timout_s": 5}})"),
       "g: command: unknown key \"timout_s\" (did you mean \"timeout_s\"?)"},
      {policy_with_gate(R"({"id": "g", "probes": [{"probe": "launch", "status": "PASS"}]})",
                        R"(, "maximum_evidnce_age_days": 3)"),
       "policy: top level: unknown key \"maximum_evidnce_age_days\" (did you mean "
       "\"maximum_evidence_age_days\"?)"},
  };
  for (const auto& c : cases) {
    auto p = policy::parse_policy(c.text, "p.json", ".");
    ASSERT_TRUE(p.ok()) << p.error().message();
    EXPECT_NE(issues_of(*p).find(c.expect), std::string::npos) << c.expect << "\n" << issues_of(*p);
    EXPECT_TRUE(p->warnings.empty());
  }
}

TEST(StrictPolicy, WaiverKeysAreCheckedAndAMisspeltWaiverWaivesNothing) {
  auto text = policy_with_gate(R"({"id": "g", "probes": [{"probe": "launch", "status": "PASS"}]})",
                               R"(, "environment_waivers": [{"gate": "g", "reason": "r", "issue":
      "https://github.com/a/b/issues/1", "opened": "2026-11-20", "expires": "2026-11-30", "blocked_claim": "c",
      "expries": "2026-12-01"}])");
  auto p = policy::parse_policy(text, "p.json", ".");
  ASSERT_TRUE(p.ok());
  auto review = policy::review_waivers(p->policy, *evidence::parse_iso_date("2026-11-29"));
  EXPECT_TRUE(review.active.empty());
  ASSERT_EQ(review.issues.size(), 1u);
  EXPECT_NE(review.issues[0].line().find("unknown key \"expries\" (did you mean \"expires\"?)"),
            std::string::npos)
      << review.issues[0].line();
}

TEST(StrictPolicy, OwnKeysStartWithXAndObliteratusKeysStayValid) {
  auto text = policy_with_gate(
      R"({"id": "g", "x-team": "robotics", "requires": {"x-note": 1}, "probes": [{"probe": "launch", "status": "PASS", "x-why": "w"}]})",
      R"(, "x-dashboard": "https://example.com")");
  auto p = policy::parse_policy(text, "p.json", ".");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(issues_of(*p), "");
  auto obliteratus = policy::load_policy_file(
      test::fixtures_dir() + "/gates/obliteratus/ci/conditional-test-policy.json",
      test::fixtures_dir() + "/gates/obliteratus");
  ASSERT_TRUE(obliteratus.ok());
  EXPECT_EQ(issues_of(*obliteratus), "");
}

TEST(StrictPolicy, NumbersOutsideTheirRangeAreRejectedNotWrapped) {
  auto wrapped = policy::parse_policy(
      R"({"schema_version": 4294967297, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
          "maximum_evidence_age_days": 18446744073709551615, "gates": [{"id": "g", "probes": [{"probe": "launch", "status": "PASS"}]}]})",
      "p.json", ".");
  ASSERT_TRUE(wrapped.ok());
  auto text = issues_of(*wrapped);
  EXPECT_NE(text.find("schema_version must be 1, not \"4294967297\""), std::string::npos) << text;
  EXPECT_NE(text.find("maximum_evidence_age_days\" must be a whole number of days"),
            std::string::npos)
      << text;
  EXPECT_FALSE(wrapped->policy.maximum_evidence_age_days);
}

TEST(StrictPolicy, DeepAndBrokenPolicyFilesAreUnusableInputWithThePosition) {
  test::TempDir t;
  auto deep_file = t.write("deep.json", "{\"gates\": " + deep(200000) + "}");
  auto r = policy::load_policy_file(deep_file);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("deep.json:1:"), std::string::npos) << r.error().message();
  auto cli = test::run_jetgate({"check", "--policy", deep_file});
  EXPECT_EQ(cli.exit_code, 2) << cli.err;
  auto broken = t.write("broken.json", "{\n \"schema_version\": 1,\n \"owner\": o\n}");
  auto b = test::run_jetgate({"check", "--policy", broken});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find("broken.json:3:"), std::string::npos) << b.err;
}

TEST(EvidenceInput, DeepEvidenceAndWrappingCountsAreRefused) {
  test::TempDir t;
  auto deep_file = t.write("g.json", "{\"schema_version\": 1, \"x\": " + deep(200000) + "}");
  auto r = evidence::read_evidence(deep_file);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("nested deeper"), std::string::npos) << r.error().message();
  auto base = nlohmann::json::parse(R"({"schema_version": 1, "gate": "g", "status": "passed",
      "generated_at": "2026-11-29T10:00:00Z", "git_sha": "local", "counts": {"tests": 1}})");
  for (const char* bad :
       {R"({"failures": 18446744073709551615})", R"({"skipped": 9223372036854775808})",
        R"({"tests": -1})", R"({"errors": 1.5})"}) {
    auto j = base;
    j["counts"].merge_patch(nlohmann::json::parse(bad));
    EXPECT_FALSE(evidence::evidence_from_json(j).ok()) << bad;
  }
  auto j = base;
  j["schema_version"] = nlohmann::json::parse("4294967297");
  EXPECT_FALSE(evidence::evidence_from_json(j).ok());
}

}  // namespace
}  // namespace jetgate
