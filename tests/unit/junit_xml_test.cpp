// SPDX-License-Identifier: Apache-2.0
// The JUnit XML jetgate writes holds only XML 1.0 characters, whatever the
// reasons it carries hold (issue 21, class 8): U+FFFE and U+FFFF, control
// characters and bytes that are not UTF-8 never reach the document.
#include "jetgate/report/junit_xml.hpp"

#include <gtest/gtest.h>

#include <pugixml.hpp>

namespace jetgate::report {
namespace {

TEST(JunitXml, OnlyXmlCharactersReachTheDocument) {
  JunitSuite suite;
  suite.name = "jetgate check";
  suite.cases.push_back(
      {"jetgate.check", "gate \xef\xbf\xbe", Outcome::fail,
       "reason \xef\xbf\xbf and \x01 and \xff, kept: \xef\xbf\xbd \xf0\x9f\x98\x80",
       "next \xef\xbf\xbe"});
  std::string xml = render_junit_xml(suite);
  EXPECT_EQ(xml.find("\xef\xbf\xbe"), std::string::npos) << xml;  // U+FFFE
  EXPECT_EQ(xml.find("\xef\xbf\xbf"), std::string::npos) << xml;  // U+FFFF
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  EXPECT_NE(xml.find("reason ? and \\x01 and \xef\xbf\xbd, kept: \xef\xbf\xbd \xf0\x9f\x98\x80"),
            std::string::npos)
      << xml;
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str()));
}

// Reporters copy a report's text into CI logs and annotations: every field
// that carries outside text is one inert line (no CR or LF to start a line
// with, no ESC, bidi or zero-width character, no leading workflow command).
TEST(JunitXml, OutsideTextIsOneInertLine) {
  JunitSuite suite;
  suite.name = "jetgate check";
  suite.cases.push_back({"jetgate.check", "::error::name\xe2\x80\xae", Outcome::fail,
                         "why\n::error::PWNED\r::add-mask::x \x1b[2J \xe2\x80\x8b ##[error]v1",
                         "next\n::warning::w"});
  const std::string xml = render_junit_xml(suite);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  auto tc = doc.child("testsuites").child("testsuite").child("testcase");
  ASSERT_TRUE(tc);
  const auto failure = tc.child("failure");
  for (const std::string& text :
       {std::string(tc.attribute("name").value()),
        std::string(failure.attribute("message").value()), std::string(failure.text().get())}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(text.find_first_of("\r\n\x1b"), std::string::npos);
    EXPECT_EQ(text.find("\xe2\x80"), std::string::npos);  // U+2000-U+203F: bidi, zero-width
    EXPECT_NE(text.rfind("::", 0), 0u);
    EXPECT_EQ(text.find("##["), std::string::npos);
  }
  EXPECT_NE(std::string(failure.text().get()).find("why\\x0a::error::PWNED\\x0d"),
            std::string::npos)
      << xml;
}

}  // namespace
}  // namespace jetgate::report
