// SPDX-License-Identifier: Apache-2.0
// Golden tests: every recorded machine under tests/fixtures/<name>/root must
// produce tests/fixtures/<name>/expected.json, and agree with the facts its
// recorder wrote down by hand in expected-facts.json. JETGATE_REGEN=1
// rewrites expected.json (review the diff before committing it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/facts/power.hpp"
#include "jetgate/record/codec.hpp"
#include "jetgate/report/platform_text.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

std::vector<std::string> recorded_machines() {
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(test::fixtures_dir()))
    if (e.is_directory() && stdfs::is_directory(e.path() / "root"))
      names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// The document as `jetgate probe --root DIR --json` prints it, with what
// depends on the checkout (its path, jetgate's version) taken out.
json normalized_document(const std::string& root_dir) {
  auto root = fs::RootFs::open(root_dir);
  EXPECT_TRUE(root.ok());
  auto platform = facts::collect_platform(*root, {});
  evidence::ProbeDocumentInput in;
  in.root = root_dir;
  in.platform = &platform;
  auto doc = evidence::build_probe_document(in);
  doc.erase("jetgate");
  doc["root"] = "$ROOT";
  std::string text = doc.dump(2);
  for (auto pos = text.find(root_dir); pos != std::string::npos; pos = text.find(root_dir, pos))
    text.replace(pos, root_dir.size(), "$ROOT");
  return json::parse(text);
}

class RecordedMachine : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedMachine, MatchesGoldenOutput) {
  std::string dir = test::fixtures_dir() + "/" + GetParam();
  json doc = normalized_document(dir + "/root");
  std::string golden = dir + "/expected.json";
  if (const char* regen = std::getenv("JETGATE_REGEN"); regen && std::string(regen) == "1") {
    std::ofstream(golden) << doc.dump(2) << "\n";
    GTEST_SKIP() << "regenerated " << golden;
  }
  ASSERT_TRUE(stdfs::exists(golden))
      << golden << " is missing; run with JETGATE_REGEN=1 and review it";
  json expected = json::parse(test::read_file(golden), nullptr, false);
  ASSERT_FALSE(expected.is_discarded()) << golden << " is not JSON";
  EXPECT_EQ(doc, expected) << "diff (JSON patch from expected to actual):\n"
                           << json::diff(expected, doc).dump(2);
}

// The text `jetgate probe --root DIR` prints, power mode and clocks included.
TEST_P(RecordedMachine, MatchesGoldenText) {
  std::string dir = test::fixtures_dir() + "/" + GetParam();
  json doc = normalized_document(dir + "/root");
  std::string text = report::render_platform_text(record::read(doc, record::Keep::known));
  std::string golden = dir + "/expected.txt";
  if (const char* regen = std::getenv("JETGATE_REGEN"); regen && std::string(regen) == "1") {
    std::ofstream(golden) << text;
    GTEST_SKIP() << "regenerated " << golden;
  }
  ASSERT_TRUE(stdfs::exists(golden))
      << golden << " is missing; run with JETGATE_REGEN=1 and review it";
  EXPECT_EQ(text, test::read_file(golden));
  if (doc["platform"]["tegra"]["is_tegra"].get<bool>() &&
      doc["platform"]["power"]["nvpmodel"].is_object()) {
    EXPECT_NE(text.find("Power mode"), std::string::npos);
    EXPECT_NE(text.find("EMC clock"), std::string::npos);
  }
}

// Where the source says what a user should be told about the power setting.
TEST_P(RecordedMachine, PowerAdviceAsTheSourceGivesIt) {
  std::string dir = test::fixtures_dir() + "/" + GetParam();
  json doc = normalized_document(dir + "/root");
  auto advice = facts::power_advice(doc["platform"]);
  std::string path = dir + "/expected-power-advice.txt";
  if (!stdfs::exists(path)) {
    // Machines that run their fastest mode with jetson_clocks need no advice.
    const auto& clocks = doc["platform"]["power"]["jetson_clocks"]["in_effect"];
    if (clocks.is_boolean() && clocks.get<bool>() &&
        doc["platform"]["power"]["nvpmodel"].value("mode_id", json()) ==
            doc["platform"]["power"]["nvpmodel"].value("fastest_mode_id", json())) {
      EXPECT_FALSE(advice) << *advice;
    }
    return;
  }
  std::string expected = test::read_file(path);
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();
  ASSERT_TRUE(advice) << GetParam() << " has expected-power-advice.txt but no advice";
  EXPECT_EQ(*advice, expected);
}

TEST_P(RecordedMachine, AgreesWithHandWrittenFacts) {
  std::string dir = test::fixtures_dir() + "/" + GetParam();
  std::string path = dir + "/expected-facts.json";
  ASSERT_TRUE(stdfs::exists(path)) << "every recorded machine needs expected-facts.json";
  json facts = json::parse(test::read_file(path), nullptr, false);
  ASSERT_TRUE(facts.is_object()) << path << " is not a JSON object";
  json doc = normalized_document(dir + "/root");
  for (const auto& [pointer, value] : facts.items()) {
    json::json_pointer ptr(pointer);
    ASSERT_TRUE(doc.contains(ptr)) << GetParam() << ": no " << pointer;
    EXPECT_EQ(doc.at(ptr), value) << GetParam() << ": " << pointer;
  }
}

TEST_P(RecordedMachine, NeverEmptyStrings) {
  json doc = normalized_document(test::fixtures_dir() + "/" + GetParam() + "/root");
  std::function<void(const json&, const std::string&)> walk = [&](const json& j,
                                                                  const std::string& at) {
    if (j.is_string()) {
      EXPECT_FALSE(j.get<std::string>().empty())
          << GetParam() << at << " is \"\" (null means unknown)";
    }
    if (j.is_object())
      for (const auto& [k, v] : j.items()) walk(v, at + "/" + k);
    if (j.is_array())
      for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], at + "/" + std::to_string(i));
  };
  walk(doc["platform"], "/platform");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RecordedMachine, ::testing::ValuesIn(recorded_machines()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(RecordedMachines, AtLeastTwentyAreRecorded) {
  EXPECT_GE(recorded_machines().size(), 20u);
}

}  // namespace
}  // namespace jetgate
