// The sanitizer's rule table (report/sanitize.cpp applies it): one row per
// kind of secret or identifying value, in the order applied. Token formats
// come from their issuers' documentation and the public rule sets of secret
// scanners (gitleaks' config/gitleaks.toml), learnt as facts, not copied;
// tests/fixtures/sanitize/ holds a case for every row and harmless
// look-alikes that must be kept. docs/claims.md lists the rows.
#pragma once

#include <regex>
#include <span>
#include <string>
#include <string_view>

namespace jetgate::report::detail {

// Whether a match is redacted (given the whole line, for context such as
// the character before it). nullptr: always.
using RuleCheck = bool (*)(const std::smatch& match, const std::string& line);

struct RuleRow {
  const char* id;  // stable name, used by the corpus tests
  // Literals, "|"-separated, one of which every match of the pattern contains
  // (compared ignoring ASCII case): a fixed prefix, a separator or a word the
  // pattern spells out. A line holding none of them skips the regular
  // expression, the sanitizer's main cost. nullptr: the row always runs.
  // SanitizeCorpus.EveryMatchContainsItsRowsLiteral checks every row.
  const char* literals;
  const char* cls;      // what the reader sees: [redacted:CLASS]
  const char* what;     // one line for docs and test messages
  const char* pattern;  // ECMAScript regular expression
  bool icase;
  const char* format;  // the replacement ($1, $2: groups kept)
  RuleCheck check;
  // For a block that may span lines (a PEM private key): the pattern of its
  // last line; everything from `pattern` to it is replaced. nullptr: one line.
  const char* block_end = nullptr;
};

// Whether text holds one of the "|"-separated literals (ASCII case ignored);
// true for nullptr.
bool holds_any_literal(std::string_view text, const char* literals);

std::span<const RuleRow> rule_table();

bool is_word_char(char c);

}  // namespace jetgate::report::detail
