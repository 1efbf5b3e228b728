// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace jetgate {
namespace {

const std::string kFffd = "\xEF\xBF\xBD";

TEST(Utf8Test, ValidTextIsKept) {
  for (const std::string s :
       {"", "plain ascii", "Grüße, 日本語, 🚀", "\xF4\x8F\xBF\xBF" /* U+10FFFF */}) {
    EXPECT_TRUE(is_valid_utf8(s)) << s;
    EXPECT_EQ(to_valid_utf8(s), s);
  }
}

// The cases of the Unicode Standard's section 3.9 ("U+FFFD Substitution of
// Maximal Subparts") and Markus Kuhn's UTF-8 decoder stress test.
TEST(Utf8Test, EachMaximalIllFormedSubpartBecomesOneReplacement) {
  struct Case {
    std::string in, out;
  } cases[] = {
      {"a\xff"
       "b",
       "a" + kFffd + "b"},
      {"\xc0\xaf", kFffd + kFffd},                          // overlong '/'
      {"\xe0\x80\xaf", kFffd + kFffd + kFffd},              // overlong, E0 needs A0..BF
      {"\xed\xa0\x80", kFffd + kFffd + kFffd},              // a UTF-16 surrogate
      {"\xf4\x90\x80\x80", kFffd + kFffd + kFffd + kFffd},  // above U+10FFFF
      {"\xe2\x82", kFffd},                                  // truncated at the end
      {"\xe2\x82"
       "A",
       kFffd + "A"},                                            // truncated before ASCII
      {"\xf0\x9f\x9a", kFffd},                                  // truncated 4-byte sequence
      {"\x80\x80", kFffd + kFffd},                              // lone continuation bytes
      {"gate-\xc3", "gate-" + kFffd},                           // an id cut inside a character
      {"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64",  // Unicode 3.9, table 3-8
       "a" + kFffd + kFffd + kFffd + "b" + kFffd + "c" + kFffd + kFffd + "d"},
  };
  for (const auto& c : cases) {
    EXPECT_FALSE(is_valid_utf8(c.in));
    EXPECT_EQ(to_valid_utf8(c.in), c.out);
    EXPECT_TRUE(is_valid_utf8(to_valid_utf8(c.in)));
  }
}

TEST(Utf8Test, TerminalSafeEscapesControlsAndBidiOverrides) {
  EXPECT_EQ(terminal_safe("gate\x1b[2J\x07"), "gate\\x1b[2J\\x07");
  EXPECT_EQ(terminal_safe("a\nb\rc\td\x7f"), "a\\x0ab\\x0dc\td\\x7f");
  EXPECT_EQ(terminal_safe("x\xc2\x9by"), "x\\u009by");  // C1 CSI
  // "Trojan Source": RLO, LRI, PDI, zero-width space, BOM.
  EXPECT_EQ(terminal_safe("id\xe2\x80\xae"
                          "cba\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8b\xef\xbb\xbf"),
            "id\\u202ecba\\u2066\\u2069\\u200b\\ufeff");
  EXPECT_EQ(terminal_safe("bad \xff byte"), "bad \\xff byte");  // says which byte
  EXPECT_EQ(terminal_safe("cut \xe2\x82"), "cut \\xe2\\x82");
  EXPECT_EQ(terminal_safe("\xe2\x80\xa8line separator"), "\\u2028line separator");
  EXPECT_EQ(terminal_safe("Grüße 🚀"), "Grüße 🚀");
}

}  // namespace
}  // namespace jetgate
