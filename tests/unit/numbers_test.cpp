// SPDX-License-Identifier: Apache-2.0
// NaN, infinities and negative zero are refused everywhere a number is read
// (issue 21, class 7): on the command line, where a range check alone lets
// NaN through, and in every JSON document jetgate reads.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/policy/policy.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

TEST(Numbers, WhyNotPlainNumber) {
  EXPECT_EQ(why_not_plain_number(0.25), "");
  EXPECT_EQ(why_not_plain_number(0.0), "");
  EXPECT_EQ(why_not_plain_number(std::nan("")), "not a number (NaN)");
  EXPECT_EQ(why_not_plain_number(std::numeric_limits<double>::infinity()), "infinite");
  EXPECT_EQ(why_not_plain_number(-std::numeric_limits<double>::infinity()), "infinite");
  EXPECT_EQ(why_not_plain_number(-0.0), "negative zero");
}

TEST(Numbers, CommandLineNumbersRefuseNanInfinityAndNegativeZero) {
  for (const char* option :
       {"--memory-fraction", "--memory-max-gib", "--probe-timeout", "--python-timeout"}) {
    for (const char* value :
         {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "-0", "-0.0"}) {
      SCOPED_TRACE(std::string(option) + " " + value);
      auto r = test::run_jetgate({"probe", option, value}, {"JETGATE_PARSE_ONLY=1"});
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    }
  }
  auto r = test::run_jetgate({"probe", "--memory-fraction", "nan"}, {"JETGATE_PARSE_ONLY=1"});
  EXPECT_NE(r.err.find("not a number (NaN)"), std::string::npos) << r.err;
  for (const char* ok : {"0.25", "0.9"})
    EXPECT_EQ(
        test::run_jetgate({"probe", "--memory-fraction", ok}, {"JETGATE_PARSE_ONLY=1"}).exit_code,
        0);
  auto days = test::run_jetgate({"support", "--evidence-dir", ".", "--max-age-days", "-0"},
                                {"JETGATE_PARSE_ONLY=1"});
  EXPECT_EQ(days.exit_code, 2) << days.err;
}

// CLI11 reads integers with strtoll(..., 0): "0x1e" would be 30 days and "010" eight.
// Every number option takes decimal digits only, checked by plain_number().
TEST(Numbers, EveryNumberOptionTakesDecimalDigitsOnly) {
  const std::vector<std::vector<std::string>> options = {
      {"probe", "--tokens"},
      {"probe", "--memory-fraction"},
      {"probe", "--memory-max-gib"},
      {"probe", "--probe-timeout"},
      {"probe", "--python-timeout"},
      {"probe", "--nfd-expiry-hours"},
      {"run", "--nfd-expiry-hours"},
      {"run", "g", "--every", "1h", "--keep"},
      {"support", "--evidence-dir", ".", "--max-age-days"},
      {"check", "--evidence-dir", ".", "--max-age-days"},
      {"init", "--max-age-days"},
      {"init", "--kubernetes", "--interval-minutes"},
      {"history", "report", "--full-nodes"},
      {"history", "report", "--points"},
  };
  for (const auto& option : options)
    for (const char* value : {"0x10", "010", "0b1", " 5", "1_0", "5."}) {
      auto argv = option;
      argv.push_back(value);
      SCOPED_TRACE(fmt::format("{} '{}'", fmt::join(option, " "), value));
      auto r = test::run_jetgate(argv, {"JETGATE_PARSE_ONLY=1"});
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
      EXPECT_NE(r.err.find("is not a decimal number"), std::string::npos) << r.err;
    }
  EXPECT_EQ(test::run_jetgate({"probe", "--tokens", "16"}, {"JETGATE_PARSE_ONLY=1"}).exit_code, 0);
  EXPECT_EQ(
      test::run_jetgate({"probe", "--probe-timeout", "2.5e1"}, {"JETGATE_PARSE_ONLY=1"}).exit_code,
      0);
}

// The rule in one place: a range-checked option in src/cli also carries plain_number().
TEST(Numbers, EveryRangeCheckedOptionInTheCliCarriesPlainNumber) {
  std::size_t ranged = 0;
  for (const auto& entry : std::filesystem::directory_iterator(test::source_dir() + "/src/cli")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = test::read_file(entry.path().string());
    for (std::size_t at = 0; (at = text.find("add_option(", at)) != std::string::npos; ++at) {
      const std::string statement = text.substr(at, text.find(';', at) - at);
      if (statement.find("CLI::Range") == std::string::npos) continue;
      ++ranged;
      EXPECT_NE(statement.find("plain_number()"), std::string::npos)
          << entry.path().filename().string() << ": " << statement.substr(0, 80);
    }
  }
  EXPECT_GE(ranged, 8u) << "the scan found the options";
}

TEST(Numbers, JsonNegativeZeroIsRefusedWhereverItSits) {
  auto bad = parse_json_text(R"({"a": [1, {"b": -0.0}]})", "doc.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().what.find("/a/1/b"), std::string::npos) << bad.error().what;
  EXPECT_NE(bad.error().what.find("negative zero"), std::string::npos);
  EXPECT_TRUE(
      parse_json_text(R"({"a": 0.0, "b": 0, "c": -1.5, "d": -10, "e": -0.5})", "doc.json").ok());
  // JSON has no NaN or infinity at all.
  EXPECT_FALSE(parse_json_text(R"({"a": NaN})", "doc.json").ok());
  EXPECT_FALSE(parse_json_text(R"({"a": Infinity})", "doc.json").ok());
}

// The integer -0: both parsers read it as 0 and lose the sign, so it is found
// in the text, outside strings, and refused like -0.0 by the slow and the
// fast parser alike.
TEST(Numbers, JsonIntegerNegativeZeroIsRefusedByBothParsers) {
  for (const std::string text :
       {"-0", "[-0]", "{\"a\":-0}", "{\"a\": [1, -0 ]}", "{\"a\":\n  -0\n}", "[1,-0,2]"}) {
    SCOPED_TRACE(text);
    auto slow = parse_json_text(text, "doc.json");
    ASSERT_FALSE(slow.ok());
    EXPECT_NE(slow.error().what.find("negative zero (-0)"), std::string::npos) << slow.error().what;
    EXPECT_EQ(slow.error().where.rfind("doc.json:", 0), 0u) << slow.error().where;
    auto fast = parse_json_fast(text, "doc.json");
    ASSERT_FALSE(fast.ok());
    EXPECT_EQ(fast.error().message(), slow.error().message());
  }
  EXPECT_EQ(parse_json_text("[1,\n -0]", "d.json").error().where, "d.json:2:2");
  // "-0" inside strings (dates, versions, names) and numbers that only begin
  // with it are not negative zero.
  for (const std::string text :
       {R"({"generated_at": "2026-01-05T00:00:00Z", "v": "r36.4-0", "n": "-0"})",
        R"(["\"-0", "a\\", -0.5, -05e1, 0, -10])", R"({"x-0": 1})"}) {
    SCOPED_TRACE(text);
    auto slow = parse_json_text(text, "doc.json");
    auto fast = parse_json_fast(text, "doc.json");
    EXPECT_EQ(slow.ok(), fast.ok());
    if (!slow.ok()) {
      EXPECT_EQ(slow.error().what.find("negative zero"), std::string::npos) << slow.error().what;
    }
  }
  EXPECT_TRUE(
      parse_json_text(R"({"generated_at": "2026-01-05", "n": "-0", "x": -0.5})", "d.json").ok());
}

TEST(Numbers, APolicyWithNegativeZeroIsRefused) {
  test::TempDir t;
  std::filesystem::create_directories(t.path(".git"));
  auto path = t.write("policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
    "evidence_retention_days": 9, "maximum_evidence_age_days": 9,
    "gates": [{"id": "unit", "command": {"argv": ["true"], "junit": "r.xml", "timeout_s": -0.0}}]})");
  auto p = policy::load_policy_file(path, t.dir());
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message().find("negative zero"), std::string::npos) << p.error().message();
}

}  // namespace
}  // namespace jetgate
