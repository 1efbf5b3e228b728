// SPDX-License-Identifier: Apache-2.0
// The sanitizer on RE2 (core/pattern.hpp): every row compiles, the rows that
// had look-ahead match what they matched before, a 1 MB line and a text of
// hostile lines finish, and known values (host, user, serial) are found as
// their per-value patterns found them.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <regex>  // the rows' former ECMAScript patterns, on the fixed corpus only
#include <string>
#include <utility>
#include <vector>

#include "jetgate/report/sanitize.hpp"
#include "jetgate/report/sanitize_rules.hpp"

namespace jetgate::report {
namespace {

TEST(SanitizeRules, EveryPatternCompiles) {
  auto errors = detail::rule_pattern_errors();
  EXPECT_TRUE(errors.empty()) << errors.front();
  // The check sees a row RE2 refuses: the look-ahead the shell-prompt row had.
  EXPECT_TRUE(Pattern::compile_error(R"(\b[a-z_]{0,31}@[A-Za-z]{0,62}(?=$|\s|:[~/]))"));
}

// The four rows written with look-ahead before RE2, as they were
// (ECMAScript, for the standard library).
#define OLD_PATH_END R"([^\s"'<>|\]),;:])"
#define OLD_SEGMENT R"([^/\s"'<>|\]),;:]+)"
#define OLD_SEGMENTS "(?:/" OLD_SEGMENT "(?: " OLD_SEGMENT "){0,3}(?=/))*"
#define OLD_WIN_SEGMENT R"([^\\\s"'<>|]+)"
const std::map<std::string, std::pair<const char*, bool>>& look_ahead_rows() {
  static const std::map<std::string, std::pair<const char*, bool>> rows = {
      {"home-path",
       {R"((?:file://)?(?:/home|/Users|/root|/tmp|/var/tmp|/private/tmp|/var/folders|/run/user)(?=$|[/\s"'<>|\]),;:]))" OLD_SEGMENTS
            OLD_PATH_END "*",
        false}},
      {"tilde-path", {"~" OLD_SEGMENTS "/" OLD_PATH_END "*", false}},
      {"windows-home-path",
       {R"(\b[A-Za-z]:\\{1,2}(?:Users|Documents and Settings)(?:\\{1,2})" OLD_WIN_SEGMENT
        "(?: " OLD_WIN_SEGMENT R"(){0,3}(?=\\))*[^\s"'<>|]*)",
        true}},
      {"shell-prompt",
       {R"(\b[a-z_][a-z0-9_.-]{0,31}@[A-Za-z][A-Za-z0-9-]{0,62}(?=$|\s|:[~/]))", false}},
  };
  return rows;
}

std::vector<std::string> fixture_lines() {
  std::vector<std::string> lines;
  for (const char* f : {"/sanitize/secrets.tsv", "/sanitize/lookalikes.txt"}) {
    std::ifstream in(std::string(JETGATE_FIXTURES_DIR) + f);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  for (const char* doc : {"/README.md", "/docs/claims.md", "/docs/trust.md", "/docs/building.md"}) {
    std::ifstream in(std::string(JETGATE_SOURCE_DIR) + doc);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  // Paths whose components hold spaces, cut by every character that ends a path.
  for (const std::string& l : std::vector<std::string>{
           "/home/Jane Doe/work/x y",
           "/home/Jane Doe Smith Jr Sr/x",
           "/home/a b c d e/f",
           "/home/a b/c d/e f",
           "/home/a b",
           "file:///home/jane/x.txt, more",
           "/homework/x /home /home: /home) /home, /home] /home| /home< /home\" /home'",
           "/tmp/x;y /var/tmp/a b/c /private/tmp/q /var/folders/zz/T /run/user/1000/bus",
           "/Users/Jane Doe/Library/x y/z",
           "~/a b/c d/e ~/x ~ ~/ ~/a b c d e/f ~/.config/jetgate",
           "C:\\Users\\Jane Doe\\AppData\\x y\\z",
           "c:\\\\users\\\\jane doe\\\\x",
           "D:\\Documents and Settings\\Jane\\My Documents\\a b\\c",
           "C:\\Users\\a b c d e\\f C:\\Users C:\\Usersx",
           "jane@orin:~$ ls",
           "jane@orin ls",
           "jane@orin:/tmp$ x",
           "jane@orin:x",
           "jane@orin",
           "image@sha256:abc",
           "a_very_long_user_name_of_more_than_thirty_two@host ok",
           "x@" + std::string(70, 'h') + " y",
       })
    lines.push_back(l);
  const std::size_t n = lines.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::string up = lines[i], low = lines[i];
    for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (auto& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lines.push_back(up);
    lines.push_back(low);
  }
  return lines;
}

using Spans = std::vector<std::pair<std::size_t, std::size_t>>;

// Each row that had look-ahead finds the same matches (where, how long) on the
// corpus, the documents and path cases as its former pattern did.
TEST(SanitizeRules, LookAheadRowsMatchAsBefore) {
  const auto lines = fixture_lines();
  ASSERT_GE(lines.size(), 300u);
  std::map<std::string, std::size_t> matched;
  for (const auto& row : detail::rule_table()) {
    auto old = look_ahead_rows().find(row.id);
    if (old == look_ahead_rows().end()) continue;
    auto flags = std::regex::ECMAScript;
    if (old->second.second) flags |= std::regex::icase;
    EXPECT_EQ(row.icase, old->second.second) << row.id;
    std::regex before(old->second.first, flags);
    for (const auto& l : lines) {
      Spans was, now;
      for (auto it = std::sregex_iterator(l.begin(), l.end(), before); it != std::sregex_iterator();
           ++it)
        if (it->length(0) > 0)
          was.emplace_back(static_cast<std::size_t>(it->position(0)),
                           static_cast<std::size_t>(it->length(0)));
      for (const auto& m : detail::row_matches(row, l))
        if (m.length() > 0) now.emplace_back(m.position(), m.length());
      EXPECT_EQ(now, was) << row.id << " on: " << l;
      matched[row.id] += was.size();
    }
  }
  ASSERT_EQ(matched.size(), 4u);
  for (const auto& [id, n] : matched) EXPECT_GE(n, 5u) << id;
}

TEST(Sanitize, AOneMegabyteLineAndLongLinesFinishQuickly) {
  auto start = std::chrono::steady_clock::now();
  for (char c : {' ', 'a', 'A', '0', '/', '@', '.', ':', '-', '=', '~', '\\', '"', '%', '_'}) {
    // A text is cut at a line boundary first (kMaxSanitizedText): nothing of
    // a 1 MB line is left.
    std::string line(1000000, c);
    auto out = sanitize(line);
    EXPECT_NE(out.find("[text cut: 1000000 more bytes"), std::string::npos) << c << out;
    EXPECT_LE(out.size(), 128u) << c;
    // 60,000 bytes fit the text; the line is cut to its first 4096.
    auto cut = sanitize(std::string(60000, c) + "\n");
    EXPECT_NE(cut.find("[line cut: 60000 bytes]"), std::string::npos) << c << cut.substr(0, 80);
    EXPECT_LE(cut.size(), kMaxSanitizedLine + 64) << c;
  }
  // Every row's literal at the start, then one character to 60,000 bytes: the
  // 4096 bytes kept reach each row's pattern.
  for (const char* head : {"-----BEGIN RSA PRIVATE KEY-----",
                           "https://user:",
                           "https://hooks.slack.com/services/",
                           "?token=",
                           "eyJ",
                           "ghp_",
                           "glpat-",
                           "xoxb-",
                           "AKIA",
                           "hf_",
                           "sk-",
                           "AIza",
                           "pypi-AgEIcHlwaS5vcmc",
                           "sk_live_",
                           "nvapi-",
                           "Bearer ",
                           "Authorization: ",
                           "--token ",
                           "password=",
                           "a@",
                           "/home/",
                           "~/",
                           "C:\\Users\\",
                           "/x",
                           "A=",
                           "00:",
                           "GPU-",
                           "::",
                           "1.",
                           "host=",
                           "a.",
                           "user=",
                           "serial="}) {
    for (char c : {'a', '0', ' ', '.', '-', '/', ':'}) {
      std::string line = head + std::string(60000, c);
      auto out = sanitize(line);
      EXPECT_LE(out.size(), kMaxSanitizedLine + 64) << head << c;
    }
  }
  // A whole text (64 KiB) of 4 KiB lines that each row reads to its end.
  std::string text;
  while (text.size() < kMaxSanitizedText)
    text += "pypi-AgEIcHlwaS5vcmc" + std::string(4000, 'A') + "\n/home/" + std::string(4000, 'a') +
            "\n" + std::string(2000, ':') + std::string(2000, '.') + "\n";
  auto out = sanitize(text);
  EXPECT_NE(out.find("[redacted:"), std::string::npos);
  // Not a timing claim: a backtracking blow-up would run for minutes.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// Known values are found in code now; they were (?:VALUE)(?:\.label){0,8}
// ignoring case, whole words only.
TEST(Sanitize, KnownValuesAsTheirPatternsFoundThem) {
  SanitizeOptions o{{"jetson-01"}, {"jane"}, {"1423021054539"}};
  EXPECT_EQ(sanitize("on JETSON-01.lab.example.com now", o), "on [redacted:host] now");
  EXPECT_EQ(sanitize("on jetson-01. now", o), "on [redacted:host]. now");
  EXPECT_EQ(sanitize("jetson-01.a.b.c.d.e.f.g.h.i", o), "[redacted:host].i");
  std::string long_label(64, 'x');
  // 63 characters of a label are taken; the 64th is a word character after it.
  EXPECT_EQ(sanitize("jetson-01." + long_label, o), "jetson-01." + long_label);
  EXPECT_EQ(sanitize("xjetson-01 jetson-01x jetson-01-b jetson-01", o),
            "xjetson-01 jetson-01x jetson-01-b [redacted:host]");
  EXPECT_EQ(sanitize("Jane's serial 1423021054539", o),
            "[redacted:user]'s serial [redacted:serial]");
  EXPECT_EQ(sanitize("janejane jane", o), "janejane [redacted:user]");
  // A value that is a pattern's special characters is itself.
  SanitizeOptions special{{}, {"a.b+c"}, {}};
  EXPECT_EQ(sanitize("a.b+c aXb+c", special), "[redacted:user] aXb+c");
}

}  // namespace
}  // namespace jetgate::report
