// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/junit.hpp"

#include <gtest/gtest.h>

#include <string>

#include "jetgate/core/utf8.hpp"
#include "test_support.hpp"

namespace jetgate::gate {
namespace {

using test::fixtures_dir;

std::string junit_fixture(const std::string& name) {
  return fixtures_dir() + "/gates/junit/" + name;
}

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

// XML has one root element. pugixml reads on past it, so a report whose
// failures sit in a second root (or text after it) once passed on the first
// root alone: each is refused, never counted as a pass.
TEST(JunitTest, AnythingBesideTheOneRootElementIsRefused) {
  const std::string ok =
      R"(<testsuite name="a" tests="1" failures="0"><testcase name="ok"/></testsuite>)";
  const std::string failing =
      R"(<testsuite name="b" tests="1" failures="1"><testcase name="bad"><failure/></testcase></testsuite>)";
  struct Case {
    std::string text, expect;
  } cases[] = {
      {ok + failing, "a second root element <testsuite>"},
      {"<?xml version=\"1.0\"?>\n" + ok + "\n" + failing, "a second root element"},
      {"<testsuites>" + ok + "</testsuites>" + failing, "a second root element"},
      {ok + "<failure/>", "a second root element <failure>"},
      {ok + "x", "text outside the root element"},
      {"x" + ok, "text outside the root element"},
      {ok + "<![CDATA[x]]>", "text outside the root element"},
  };
  for (const auto& c : cases) {
    auto r = parse_junit_xml(c.text, "report.xml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().message().find(c.expect), std::string::npos) << r.error().message();
  }
  // What may sit around the root: a declaration, comments, processing
  // instructions, a doctype and blank space.
  auto r = parse_junit_xml("<?xml version=\"1.0\"?>\n<!DOCTYPE testsuite>\n<!-- c -->\n" + ok +
                               "\n<!-- after -->\n<?pi x?>\n",
                           "report.xml");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->tests, 1);
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
    for (std::size_t i = 0; i < (kMaxJunitBytes >> 20) + 1; ++i)
      fwrite(chunk.data(), 1, chunk.size(), f);
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
  auto c = parse_junit_xml(R"(<testsuites><testsuite tests="1"><testcase name="a"/></testsuite>)"
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
  auto c = parse_junit_xml(
      R"(<testsuites tests="x"><testsuite><testcase/></testsuite></testsuites>)", "bad-root.xml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("tests=\"x\""), std::string::npos) << c.error().message();
}

TEST(JunitTest, MissingFileIsAnError) {
  auto r = read_junit_file("/nonexistent-dir-jetgate/report.xml");
  ASSERT_FALSE(r.ok());
}

// --- Hostile reports (issue 11, class 1): every <testcase> counts, nothing wraps. ---

std::string nested(const std::string& open, const std::string& close, int depth,
                   const std::string& inner) {
  std::string xml;
  xml.reserve((open.size() + close.size()) * static_cast<std::size_t>(depth) + inner.size());
  for (int i = 0; i < depth; ++i) xml += open;
  xml += inner;
  for (int i = 0; i < depth; ++i) xml += close;
  return xml;
}

const char* kFailingCase = R"(<testcase name="broken"><failure message="boom"/></testcase>)";

TEST(JunitTest, FailingSuiteInsideNestedTestsuitesCounts) {
  auto c = parse_junit_xml(
      R"(<testsuites><testsuite name="ok" tests="1"><testcase name="a"/></testsuite>)"
      R"(<testsuites><testsuite name="bad" tests="1" failures="1">)" +
          std::string(kFailingCase) + "</testsuite></testsuites></testsuites>",
      "nested-testsuites.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_EQ(c->failures, 1);
  EXPECT_EQ(c->suites, 2);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, FailingCaseDeeperThan64SuitesCounts) {
  auto c = parse_junit_xml("<testsuites><testsuite><testcase name=\"ok\"/>" +
                               nested("<testsuite>", "</testsuite>", 100, kFailingCase) +
                               "</testsuite></testsuites>",
                           "deep.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_EQ(c->failures, 1);
  EXPECT_EQ(c->suites, 101);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, FailingCaseAt100kNestedSuitesCountsWithoutRecursion) {
  auto c = parse_junit_xml("<testsuites><testsuite><testcase name=\"ok\"/></testsuite>" +
                               nested("<testsuite>", "</testsuite>", 100000, kFailingCase) +
                               "</testsuites>",
                           "very-deep.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->tests, 2);
  EXPECT_EQ(c->failures, 1);
  EXPECT_FALSE(c->clean());
  // The same depth of elements jetgate does not know.
  c = parse_junit_xml("<testsuite><testcase name=\"ok\"/>" +
                          nested("<x>", "</x>", 100000, kFailingCase) + "</testsuite>",
                      "very-deep-unknown.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->failures, 1);
}

TEST(JunitTest, FailingCaseInsideUnknownElementCounts) {
  for (const std::string& xml : {
           R"(<testsuites><testsuite tests="1"><testcase name="a"/><group>)" +
               std::string(kFailingCase) + "</group></testsuite></testsuites>",
           R"(<testsuites><wrapper><testsuite>)" + std::string(kFailingCase) +
               "</testsuite></wrapper></testsuites>",
           R"(<testsuites><properties/><wrapper>)" + std::string(kFailingCase) +
               "</wrapper></testsuites>",
       }) {
    auto c = parse_junit_xml(xml, "unknown-element.xml");
    ASSERT_TRUE(c.ok()) << xml << ": " << c.error().message();
    EXPECT_EQ(c->failures, 1) << xml;
    EXPECT_FALSE(c->clean()) << xml;
  }
}

TEST(JunitTest, CountsSaturateInsteadOfWrapping) {
  // INT64_MAX from the attribute plus one real failure wrapped to a negative
  // count, and a negative count is "no failures".
  auto c = parse_junit_xml(R"(<testsuites><testsuite tests="1" failures="9223372036854775807"/>)"
                           R"(<testsuite tests="1">)" +
                               std::string(kFailingCase) + "</testsuite></testsuites>",
                           "wrap.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->failures, INT64_MAX);
  EXPECT_FALSE(c->clean());
  c = parse_junit_xml(
      R"(<testsuites><testsuite tests="2" skipped="9223372036854775807" )"
      R"(disabled="9223372036854775807"><testcase name="a"/></testsuite>)"
      R"(<testsuite errors="9223372036854775807" tests="9223372036854775807"><testcase name="b"/>)"
      R"(</testsuite></testsuites>)",
      "huge-skips.xml");
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->skipped, INT64_MAX);
  EXPECT_EQ(c->errors, INT64_MAX);
  EXPECT_EQ(c->tests, INT64_MAX);
  EXPECT_FALSE(c->clean());
}

TEST(JunitTest, CountsBeyond63BitsAreRejected) {
  auto c = parse_junit_xml(
      R"(<testsuite tests="1" failures="9223372036854775808"><testcase/></testsuite>)",
      "too-big.xml");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message().find("too large"), std::string::npos) << c.error().message();
}

TEST(JunitTest, DeeplyNestedDoctypeSectionsDoNotCrash) {
  std::string xml = "<!DOCTYPE x [" + nested("<![ ", "]]>", 200000, "") + "]><testsuite/>";
  auto r = parse_junit_xml(xml, "doctype.xml");
  if (r.ok()) {
    EXPECT_EQ(r->tests, 0);  // either way: no crash, and nothing green
  }
}

TEST(JunitTest, BytesThatAreNotUtf8NeverReachTheMessageRaw) {
  const std::string bad = "\xff\xfe\xc3";
  struct Case {
    std::string xml, expect;
  } cases[] = {
      {"<testsuite tests=\"1\" failures=\"" + bad + "\"><testcase/></testsuite>",
       "failures=\"\xEF\xBF\xBD"},
      {"<r" + bad + "><testcase/></r" + bad + ">", "root element <r\xEF\xBF\xBD"},
      {"<testsuite x" + bad + "=\"1\"><testcase n" + bad + "=\"" + bad +
           "\"><failure/></testcase></testsuite>",
       ""},
  };
  for (const auto& c : cases) {
    auto r = parse_junit_xml(c.xml, "report-\xff.xml");
    if (c.expect.empty()) {
      ASSERT_TRUE(r.ok()) << r.error().message();
      EXPECT_EQ(r->failures, 1);
      continue;
    }
    ASSERT_FALSE(r.ok());
    const std::string msg = r.error().message();
    EXPECT_TRUE(is_valid_utf8(msg)) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
    EXPECT_NE(msg.find("report-\xEF\xBF\xBD.xml"), std::string::npos) << msg;
  }
}
}  // namespace
}  // namespace jetgate::gate
