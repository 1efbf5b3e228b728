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
  EXPECT_NE(xml.find("reason ? and ? and \xef\xbf\xbd, kept: \xef\xbf\xbd \xf0\x9f\x98\x80"),
            std::string::npos)
      << xml;
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(xml.c_str()));
}

}  // namespace
}  // namespace jetgate::report
