// SPDX-License-Identifier: Apache-2.0
// Regular expressions over text that comes from outside (the files the probes
// read, the text the sanitizer scrubs), with RE2 (github.com/google/re2): its
// matching time is linear in the input and it never recurses per character.
// libstdc++'s regular expressions recurse once per character of a repeated
// atom (GCC bug 86164), so a cvconfig.h holding 30,000 spaces in a row
// overflowed the stack; no file under src/ may use them
// (tests/unit/layering_test.cpp, Layering.NoSourceUsesTheStandardRegex).
//
// A Pattern reads bytes (RE2's Latin-1 mode), as the standard library's did:
// "." and a negated class take one byte each, and counted repetitions count
// bytes. RE2 has no look-around and no backreferences; its syntax is at
// github.com/google/re2/wiki/Syntax. Its "\s" is [\t\n\f\r ] (no \v): write
// [[:space:]] where a vertical tab must count as space too.
#pragma once

#include <re2/re2.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate {

// One match: group 0 is the whole match, group i the i-th capture. A group
// that took no part in the match is unmatched (matched(i) is false).
class PatternMatch {
 public:
  PatternMatch(std::string_view text, std::vector<std::string_view> groups)
      : text_(text), groups_(std::move(groups)) {}

  std::size_t size() const { return groups_.size(); }
  bool matched(std::size_t i) const { return i < groups_.size() && groups_[i].data() != nullptr; }
  // Offset of group i in the searched text (npos when unmatched).
  std::size_t position(std::size_t i = 0) const {
    return matched(i) ? static_cast<std::size_t>(groups_[i].data() - text_.data())
                      : std::string_view::npos;
  }
  std::size_t length(std::size_t i = 0) const { return matched(i) ? groups_[i].size() : 0; }
  std::size_t end(std::size_t i = 0) const { return position(i) + length(i); }
  std::string_view view(std::size_t i = 0) const {
    return matched(i) ? groups_[i] : std::string_view{};
  }
  std::string str(std::size_t i = 0) const { return std::string(view(i)); }
  std::string operator[](std::size_t i) const { return str(i); }
  std::string_view text() const { return text_; }

 private:
  std::string_view text_;
  std::vector<std::string_view> groups_;
};

class Pattern {
 public:
  enum class Case { sensitive, insensitive };

  // Whether `pattern` compiles, and RE2's reason when it does not.
  static std::optional<std::string> compile_error(const char* pattern, Case c = Case::sensitive);

  // Compiles once (keep it static). A pattern in jetgate's sources that does
  // not compile is a programming error: the constructor prints RE2's reason
  // and aborts, and the tests construct every pattern
  // (tests/unit/pattern_test.cpp, SanitizeRules.EveryPatternCompiles).
  explicit Pattern(const char* pattern, Case c = Case::sensitive);
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  // The whole of text matches.
  std::optional<PatternMatch> full_match(std::string_view text) const;
  bool full_matches(std::string_view text) const;
  // The leftmost match starting at or after `from`; what comes before `from`
  // is still seen by ^ and \b.
  std::optional<PatternMatch> search(std::string_view text, std::size_t from = 0) const;
  bool found_in(std::string_view text) const;
  // Each match, left to right, the next searched from the end of the last
  // (from one byte further after an empty match).
  std::vector<PatternMatch> all(std::string_view text) const;

  const RE2& re2() const { return re_; }
  const char* pattern() const { return pattern_; }

 private:
  std::optional<PatternMatch> match(std::string_view text, std::size_t from,
                                    RE2::Anchor anchor) const;
  const char* pattern_;
  RE2 re_;
};

// RE2's options for a Pattern: Latin-1 (a byte is a character), errors not
// logged (they are reported or abort), the case as asked.
RE2::Options pattern_options(Pattern::Case c);

}  // namespace jetgate
