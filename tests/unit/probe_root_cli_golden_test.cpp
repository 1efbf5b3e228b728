// SPDX-License-Identifier: Apache-2.0
// The jetgate binary itself (not only the library, as fixture_golden_test does)
// prints the golden document for every recorded machine. In the aarch64 CI lane
// this runs the cross-built binary under qemu, so a difference in char
// signedness, alignment or syscalls on aarch64 shows up as a diff here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jetgate {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

std::vector<std::string> recorded_roots() {
  std::vector<std::string> names;
  for (const auto& e : stdfs::directory_iterator(test::fixtures_dir()))
    if (stdfs::is_directory(e.path() / "root") && stdfs::exists(e.path() / "expected.json"))
      names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

class BinaryOnRecordedRoot : public ::testing::TestWithParam<std::string> {};

TEST_P(BinaryOnRecordedRoot, PrintsTheGoldenDocument) {
  const std::string dir = test::fixtures_dir() + "/" + GetParam();
  const std::string root = dir + "/root";
  auto r = test::run_jetgate({"probe", "--root", root, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // What depends on the checkout and the build, as fixture_golden_test takes it out.
  std::string text = r.out;
  for (auto pos = text.find(root); pos != std::string::npos; pos = text.find(root, pos))
    text.replace(pos, root.size(), "$ROOT");
  json doc = json::parse(text, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  doc.erase("jetgate");
  doc["root"] = "$ROOT";
  json expected = json::parse(test::read_file(dir + "/expected.json"), nullptr, false);
  ASSERT_TRUE(expected.is_object()) << dir << "/expected.json is not a JSON object";
  EXPECT_EQ(doc, expected) << "diff (JSON patch from expected to actual):\n"
                           << json::diff(expected, doc).dump(2);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BinaryOnRecordedRoot, ::testing::ValuesIn(recorded_roots()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (auto& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(BinaryOnRecordedRoots, CoversEveryJetsonFixture) {
  auto roots = recorded_roots();
  EXPECT_GE(std::count_if(roots.begin(), roots.end(),
                          [](const std::string& n) {
                            return n.find("orin") != std::string::npos ||
                                   n.find("thor") != std::string::npos ||
                                   n.find("xavier") != std::string::npos ||
                                   n.find("nano") != std::string::npos;
                          }),
            8);
}

}  // namespace
}  // namespace jetgate
