#include <gtest/gtest.h>

#include <string>

#include "jetgate/gate/junit.hpp"
#include "test_support.hpp"

namespace jetgate::gate {
namespace {

using test::fixtures_dir;

std::string junit_fixture(const std::string& name) { return fixtures_dir() + "/gates/junit/" + name; }

TEST(JunitTest, PytestMixedCountsXfailAsSkipped) {
  auto c = read_junit_file(junit_fixture("pytest-mixed.xml"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 4);
  EXPECT_EQ(c->failures, 1);
  EXPECT_EQ(c->errors, 0);
  EXPECT_EQ(c->skipped, 2);  // one skip + one xfail
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, PytestPassingIsClean) {
  auto c = read_junit_file(junit_fixture("pytest-passing.xml"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_TRUE(c->clean());
}

TEST(JunitTest, GoogleTestSumsSuitesAndCountsSkippedAndDisabled) {
  auto c = read_junit_file(junit_fixture("gtest-mixed.xml"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->suites, 2);
  EXPECT_EQ(c->tests, 5);
  EXPECT_EQ(c->failures, 1);
  EXPECT_EQ(c->skipped, 2);  // GTEST_SKIP + DISABLED_
}

TEST(JunitTest, GoogleTestPassing) {
  auto c = read_junit_file(junit_fixture("gtest-passing.xml"));
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_TRUE(c->clean());
}

TEST(JunitTest, OldPytestRootTestsuite) {
  auto c = parse_junit_xml(
      R"(<?xml version="1.0"?><testsuite name="pytest" tests="1" errors="1" failures="0" skipped="0">)"
      R"(<testcase name="t"><error message="fixture broke"/></testcase></testsuite>)",
      "old.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->errors, 1);
}

TEST(JunitTest, AttributesThatUnderstateCasesDoNotHideSkips) {
  auto c = parse_junit_xml(
      R"(<testsuites><testsuite tests="2" skipped="0" failures="0" errors="0">)"
      R"(<testcase name="a"/><testcase name="b"><skipped type="pytest.xfail"/></testcase>)"
      R"(</testsuite></testsuites>)",
      "x.xml");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->skipped, 1);
}

TEST(JunitTest, MalformedReportsAreErrorsNamingTheFile) {
  std::string truncated = test::read_file(junit_fixture("pytest-mixed.xml"));
  truncated.resize(truncated.size() / 2);
  struct Case {
    std::string text, expect;
  } cases[] = {
      {truncated, "not well-formed XML"},
      {"", "empty"},
      {"   \n", "empty"},
      {"this is not xml at all", "not well-formed XML"},
      {std::string("\x00\xff\xfe<<>>\x01", 8), "not well-formed"},
      {"<testsuites></testsuites>", "no <testsuite>"},
      {"<html><body/></html>", "neither <testsuites> nor <testsuite>"},
      {R"(<testsuite tests="many"/>)", "not a non-negative integer"},
      {R"(<testsuite tests="-3"/>)", "not a non-negative integer"},
  };
  for (const auto& c : cases) {
    auto r = parse_junit_xml(c.text, "report.xml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message().find(c.expect), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find("report.xml"), std::string::npos);
  }
}

TEST(JunitTest, EmptySuiteHasZeroTests) {
  auto c = parse_junit_xml(R"(<testsuites><testsuite name="pytest" tests="0"/></testsuites>)", "x");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->tests, 0);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, HugeFileIsRefusedNotRead) {
  test::TempDir t;
  std::string path = t.path("huge.xml");
  {
    std::string chunk(1 << 20, ' ');
    std::string body = "<testsuites>";
    FILE* f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fwrite(body.data(), 1, body.size(), f);
    for (std::size_t i = 0; i < (kMaxJunitBytes >> 20) + 1; ++i) fwrite(chunk.data(), 1, chunk.size(), f);
    fclose(f);
  }
  auto r = read_junit_file(path);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("larger than"), std::string::npos) << r.error().message();
}

TEST(JunitTest, SuiteWithCasesAndNestedSuiteCountsBoth) {
  auto c = parse_junit_xml(
      R"(<testsuites><testsuite tests="2" failures="1"><testcase name="a"><failure/></testcase>)"
      R"(<testsuite><testcase name="b"/></testsuite></testsuite></testsuites>)",
      "mixed-nesting.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_EQ(c->failures, 1);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, StrayCaseUnderRootIsCounted) {
  auto c = parse_junit_xml(
      R"(<testsuites><testsuite tests="1"><testcase name="a"/></testsuite>)"
      R"(<testcase name="stray"><error/></testcase></testsuites>)",
      "stray.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_EQ(c->errors, 1);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, TopLevelAttributesAreAFloor) {
  auto c = parse_junit_xml(
      R"(<testsuites tests="3" failures="1"><testsuite><testcase name="a"/></testsuite></testsuites>)",
      "floor.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 3);
  EXPECT_EQ(c->failures, 1);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, BadRootAttributeIsAnError) {
  auto c = parse_junit_xml(R"(<testsuites tests="x"><testsuite><testcase/></testsuite></testsuites>)",
                           "bad-root.xml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("tests=\"x\""), std::string::npos) << c.error().message();
}

TEST(JunitTest, MissingFileIsAnError) {
  auto r = read_junit_file("/nonexistent-dir-jetgate/report.xml");
  ASSERT_FALSE(r.ok());
}

TEST(JunitTest, DeepNestingDoesNotCrash) {
  std::string xml;
  for (int i = 0; i < 5000; ++i) xml += "<testsuite>";
  for (int i = 0; i < 5000; ++i) xml += "</testsuite>";
  auto r = parse_junit_xml(xml, "deep.xml");
  // Nesting beyond 64 levels is not followed; what is counted is zero tests.
  if (r.ok()) {
    EXPECT_EQ(r->tests, 0);
  }
}

}  // namespace
}  // namespace jetgate::gate
