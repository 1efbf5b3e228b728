// SPDX-License-Identifier: Apache-2.0
// The sanitizer's rule table (report/sanitize.cpp applies it): one row per
// kind of secret or identifying value, in the order applied. Token formats
// come from their issuers' documentation and the public rule sets of secret
// scanners (gitleaks' config/gitleaks.toml), learnt as facts, not copied;
// tests/fixtures/sanitize/ holds a case for every row and harmless
// look-alikes that must be kept. docs/claims.md lists the rows.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/pattern.hpp"

namespace jetgate::report::detail {

// Whether a match is redacted (given the whole line, for context such as
// the character before it). nullptr: always.
using RuleCheck = bool (*)(const PatternMatch& match, const std::string& line);

struct RuleRow {
  const char* id;  // stable name, used by the corpus tests
  // Literals, "|"-separated, one of which every match of the pattern contains
  // (compared ignoring ASCII case): a fixed prefix, a separator or a word the
  // pattern spells out. A line holding none of them skips the regular
  // expression, the sanitizer's main cost. nullptr: the row always runs.
  // SanitizeCorpus.EveryMatchContainsItsRowsLiteral checks every row.
  const char* literals;
  const char* cls;   // what the reader sees: [redacted:CLASS]
  const char* what;  // one line for docs and test messages
  // An RE2 pattern (core/pattern.hpp), over a line that bounded_line made: no
  // control characters, so RE2's \s (no \v) is the whole of white space there.
  const char* pattern;
  bool icase;
  const char* format;  // the replacement ($1, $2: groups kept)
  RuleCheck check;
  // For a block that may span lines (a PEM private key): the pattern of its
  // last line; everything from `pattern` to it is replaced. nullptr: one line.
  const char* block_end = nullptr;
  // RE2 has no look-ahead. true: group 1 is the match, and what the pattern
  // matches after it is context that must follow it, neither replaced nor
  // consumed (the next match is searched from the end of group 1).
  bool match_is_group_1 = false;
};

// Whether text holds one of the "|"-separated literals (ASCII case ignored);
// true for nullptr.
bool holds_any_literal(std::string_view text, const char* literals);

std::span<const RuleRow> rule_table();

// The matches of a row's pattern in line, left to right, as the sanitizer
// finds them (before the row's check): each searched from the end of the last.
std::vector<PatternMatch> row_matches(const RuleRow& row, std::string_view line);

// For each row of rule_table(), whether line holds one of its literals, as the
// sanitizer's one-pass prefilter (an RE2::Set of every row's literals) finds it:
// the same answer as holds_any_literal(line, row.literals) for every row.
std::vector<bool> rows_with_literals_in(std::string_view line);

// "id: RE2's reason" for each row pattern that does not compile; empty when all do.
std::vector<std::string> rule_pattern_errors();

bool is_word_char(char c);

}  // namespace jetgate::report::detail
