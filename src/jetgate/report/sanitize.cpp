// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/sanitize.hpp"

#include <re2/set.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "jetgate/core/pattern.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/sanitize_rules.hpp"

namespace jetgate::report {
namespace {

using detail::RuleRow;

Pattern::Case case_of(const RuleRow& row) {
  return row.icase ? Pattern::Case::insensitive : Pattern::Case::sensitive;
}

struct CompiledRule {
  const RuleRow* row;
  std::unique_ptr<Pattern> pattern;
  std::unique_ptr<Pattern> block_end;
  int literal_index;  // the row's entry in the literal set; -1: no literals, always tried
};

struct CompiledRules {
  std::vector<CompiledRule> rules;
  // Every row's literals, one entry per row ("lit1|lit2", quoted, ASCII case
  // ignored): one pass over a line says which rows can match it at all, where
  // searching each row's literals in turn cost most of the sanitizer's time.
  std::unique_ptr<RE2::Set> literals;
  int literal_count = 0;
};

RE2::Options literal_options() {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);  // bytes, as Pattern reads them
  o.set_log_errors(false);
  o.set_case_sensitive(false);  // the literals are ASCII: Latin-1 folding is ASCII's there
  return o;
}

// Each row's patterns, compiled once (a row that does not compile aborts:
// SanitizeRules.EveryPatternCompiles keeps that from shipping).
const CompiledRules& compiled_rules() {
  static const CompiledRules rules = [] {
    CompiledRules out;
    out.literals = std::make_unique<RE2::Set>(literal_options(), RE2::UNANCHORED);
    for (const auto& row : detail::rule_table()) {
      CompiledRule c{&row, std::make_unique<Pattern>(row.pattern, case_of(row)), nullptr, -1};
      if (row.block_end) c.block_end = std::make_unique<Pattern>(row.block_end, case_of(row));
      if (row.literals != nullptr) {
        std::string alternatives;
        std::string_view rest = row.literals;
        while (true) {
          auto bar = rest.find('|');
          if (!alternatives.empty()) alternatives += '|';
          alternatives += RE2::QuoteMeta(re2::StringPiece(rest.substr(0, bar)));
          if (bar == std::string_view::npos) break;
          rest.remove_prefix(bar + 1);
        }
        std::string error;
        c.literal_index = out.literals->Add(alternatives, &error);
        if (c.literal_index < 0) {
          std::fprintf(stderr, "jetgate: sanitizer row %s: literals do not compile: %s\n", row.id,
                       error.c_str());
          std::abort();
        }
        ++out.literal_count;
      }
      out.rules.push_back(std::move(c));
    }
    if (!out.literals->Compile()) {
      std::fputs("jetgate: the sanitizer's literal set does not compile\n", stderr);
      std::abort();
    }
    return out;
  }();
  return rules;
}

// Which rows' literals the line holds (indexed by literal_index).
std::vector<bool> literals_present(std::string_view line) {
  const auto& compiled = compiled_rules();
  std::vector<bool> present(static_cast<std::size_t>(compiled.literal_count), false);
  std::vector<int> hits;
  if (compiled.literals->Match(re2::StringPiece(line.data(), line.size()), &hits))
    for (int i : hits) present[static_cast<std::size_t>(i)] = true;
  return present;
}

// The next match of a row at or after `from`; for a row whose context follows
// group 1, group 1 is the match.
std::optional<PatternMatch> next_match(const CompiledRule& rule, std::string_view line,
                                       std::size_t from) {
  auto m = rule.pattern->search(line, from);
  if (!m || !rule.row->match_is_group_1) return m;
  std::vector<std::string_view> groups;
  for (std::size_t i = 1; i < m->size(); ++i) groups.push_back(m->view(i));
  groups.insert(groups.begin(), m->view(1));
  return PatternMatch(line, std::move(groups));
}

// ECMAScript's replacement format (as the C++ standard library's format() reads it):
// $n and $nn are groups (nothing when out of range or unmatched), $& the
// match, $$ a dollar sign; any other character is itself.
std::string format_match(const PatternMatch& m, std::string_view format) {
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    char c = format[i];
    if (c != '$' || i + 1 == format.size()) {
      out += c;
      continue;
    }
    char next = format[i + 1];
    if (next == '$') {
      out += '$';
      ++i;
    } else if (next == '&') {
      out += m.view(0);
      ++i;
    } else if (next >= '0' && next <= '9') {
      std::size_t n = static_cast<std::size_t>(next - '0');
      ++i;
      if (i + 1 < format.size() && format[i + 1] >= '0' && format[i + 1] <= '9') {
        n = n * 10 + static_cast<std::size_t>(format[i + 1] - '0');
        ++i;
      }
      if (n < m.size()) out += m.view(n);
    } else {
      out += c;
    }
  }
  return out;
}

// A value known to identify someone (this machine's host name, the evidence's
// serial numbers), found ignoring ASCII case; a host name takes up to eight
// ".label" parts after it (jetson-01.lab.example), as the pattern
// (?:VALUE)(?:\.[A-Za-z0-9-]{1,63}){0,8} did, without building one per value.
struct KnownValue {
  std::string id, cls;
  std::string value;
  bool host_labels;
};

bool same_ignoring_ascii_case(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

bool is_label_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
}

// The next occurrence of k at or after `from`: its position and length.
std::optional<std::pair<std::size_t, std::size_t>> find_known(const KnownValue& k,
                                                              std::string_view line,
                                                              std::size_t from) {
  if (k.value.empty() || from > line.size()) return std::nullopt;
  auto it = std::search(line.begin() + static_cast<std::ptrdiff_t>(from), line.end(),
                        k.value.begin(), k.value.end(), same_ignoring_ascii_case);
  if (it == line.end()) return std::nullopt;
  std::size_t pos = static_cast<std::size_t>(it - line.begin());
  std::size_t end = pos + k.value.size();
  if (k.host_labels)
    for (int label = 0; label < 8; ++label) {
      if (end >= line.size() || line[end] != '.') break;
      std::size_t run = 0;
      while (end + 1 + run < line.size() && run < 63 && is_label_char(line[end + 1 + run])) ++run;
      if (run == 0) break;
      end += 1 + run;
    }
  return std::pair{pos, end - pos};
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_generic_name(const std::string& value) {
  static const std::array<const char*, 22> kGeneric = {
      "ubuntu", "nvidia", "jetson",  "root", "runner", "user", "admin",  "localhost",
      "linux",  "debian", "tegra",   "orin", "xavier", "nano", "docker", "github",
      "host",   "build",  "default", "ci",   "test",   "none"};
  return value.size() < 3 ||
         std::find(kGeneric.begin(), kGeneric.end(), lower(value)) != kGeneric.end();
}

std::vector<KnownValue> known_value_rules(const SanitizeOptions& o) {
  std::vector<KnownValue> rules;
  auto add = [&](const std::vector<std::string>& values, const char* id, const char* cls,
                 bool host_labels) {
    for (const auto& v : values)
      if (!is_generic_name(v)) rules.push_back({id, cls, v, host_labels});
  };
  // A host's short name is how logs name it as often as its full name
  // ("build7" of "build7.example.org"): both are hidden.
  std::vector<std::string> hosts = o.hostnames;
  for (const auto& h : o.hostnames)
    if (auto dot = h.find('.'); dot != std::string::npos && dot > 0)
      hosts.push_back(h.substr(0, dot));
  add(hosts, "known-host", "host", true);
  add(o.users, "known-user", "user", false);
  add(o.serials, "known-serial", "serial", false);
  return rules;
}

char char_at(const std::string& line, std::size_t pos) {
  return pos >= line.size() ? ' ' : line[pos];
}

struct Replacement {
  std::size_t pos, length;
  std::optional<std::string> text;  // nullopt: kept as it is
};

// Each match that `next` finds (from a position on; nullopt when there are no
// more) is replaced by its text; the next is searched from the end of the
// last, whether it was replaced or not (from one byte on after an empty one).
// LINE is changed only when something is replaced, and only then copied: most
// rows find nothing on most lines. Returns whether anything was replaced.
template <typename NextFn>
bool apply(std::string& line, NextFn next) {
  std::string out;
  bool replaced = false;
  std::size_t last = 0, from = 0;
  while (auto m = next(from)) {
    auto [pos, length, replacement] = *m;
    from = length == 0 ? pos + 1 : pos + length;
    if (length == 0 || !replacement) continue;
    if (!replaced) out.reserve(line.size() + replacement->size());
    replaced = true;
    out.append(line, last, pos - last);
    out += *replacement;
    last = pos + length;
  }
  if (!replaced) return false;
  out.append(line, last, std::string::npos);
  line = std::move(out);
  return true;
}

// At most kMaxSanitizedLine bytes, cut before the last partial word so no
// fragment of a token survives the cut; valid UTF-8 without control,
// zero-width or bidi characters.
std::string bounded_line(std::string_view raw) {
  std::string line(raw);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > kMaxSanitizedLine) {
    std::size_t original = line.size();
    line.resize(kMaxSanitizedLine);
    auto space = line.find_last_of(" \t");
    line.resize(space == std::string::npos ? 0 : space);
    line += " [line cut: " + std::to_string(original) + " bytes]";
  }
  std::string out;
  out.reserve(line.size());
  for (std::size_t i = 0; i < line.size();) {
    Utf8Unit u = decode_utf8(line, i);
    if (!u.valid)
      out += "\xEF\xBF\xBD";  // U+FFFD
    else if (u.code_point < 0x20 || u.code_point == 0x7F ||
             (u.code_point >= 0x80 && u.code_point <= 0x9F))
      out += ' ';
    else if (!is_invisible_control(u.code_point))
      out.append(line, i, u.length);
    i += u.length;
  }
  return out;
}

class Sanitizer {
 public:
  explicit Sanitizer(const SanitizeOptions& o) : known_(known_value_rules(o)) {}

  // One line, or nullopt when the whole line is inside a private key block.
  std::optional<std::string> line(std::string text) {
    if (in_block_) {
      auto end = in_block_->block_end->search(text);
      if (!end) return std::nullopt;
      text = text.substr(end->end());
      in_block_ = nullptr;
      if (text.find_first_not_of(" \t") == std::string::npos) return std::nullopt;
    }
    // A blank line has nothing to redact; skipping the rule table keeps a text
    // of many short lines cheap.
    if (text.find_first_not_of(" \t") == std::string::npos) return text;
    // A row runs only on a line that holds one of its literals, as the line is
    // when its turn comes: a redaction earlier in the table changes the line, so
    // the set is matched again after each change (rare: one match per line).
    std::vector<bool> present = literals_present(text);
    for (const auto& rule : compiled_rules().rules) {
      if (rule.literal_index >= 0 && !present[static_cast<std::size_t>(rule.literal_index)])
        continue;
      if (rule.block_end) {
        std::string next = block_rule(text, rule);
        if (next == text) continue;
        text = std::move(next);
      } else if (!row_rule(text, rule)) {
        continue;
      }
      present = literals_present(text);
    }
    for (const auto& k : known_) {
      const std::string& current = text;
      apply(text, [&](std::size_t from) -> std::optional<Replacement> {
        auto found = find_known(k, current, from);
        if (!found) return std::nullopt;
        auto [pos, length] = *found;
        char b = pos == 0 ? ' ' : current[pos - 1], a = char_at(current, pos + length);
        if (detail::is_word_char(b) || b == '-' || detail::is_word_char(a) || a == '-')
          return Replacement{pos, length, std::nullopt};
        ++result_.redactions[k.id];
        return Replacement{pos, length, "[redacted:" + k.cls + "]"};
      });
    }
    return text;
  }

  SanitizeResult& result() { return result_; }

 private:
  // Whether the row replaced anything in TEXT.
  bool row_rule(std::string& text, const CompiledRule& rule) {
    return apply(text, [&](std::size_t from) -> std::optional<Replacement> {
      auto m = next_match(rule, text, from);
      if (!m) return std::nullopt;
      if (m->length() == 0 || (rule.row->check && !rule.row->check(*m, text)))
        return Replacement{m->position(), m->length(), std::nullopt};
      ++result_.redactions[rule.row->id];
      return Replacement{m->position(), m->length(), format_match(*m, rule.row->format)};
    });
  }

  // BEGIN ... END on this line is replaced; a BEGIN without its END hides the
  // rest of the line and every line up to the END.
  std::string block_rule(const std::string& text, const CompiledRule& rule) {
    std::string out;
    std::string_view rest = text;
    while (auto begin = rule.pattern->search(rest)) {
      out.append(rest.substr(0, begin->position()));
      out += rule.row->format;
      ++result_.redactions[rule.row->id];
      std::string_view after = rest.substr(begin->end());
      auto end = rule.block_end->search(after);
      if (!end) {
        in_block_ = &rule;
        return out;
      }
      rest = after.substr(end->end());
    }
    out.append(rest);
    return out;
  }

  std::vector<KnownValue> known_;
  const CompiledRule* in_block_ = nullptr;
  SanitizeResult result_;
};

}  // namespace

SanitizeResult sanitize_counting(std::string_view text, const SanitizeOptions& options) {
  Sanitizer sanitizer(options);
  std::string& out = sanitizer.result().text;
  std::size_t cut = 0;
  if (text.size() > kMaxSanitizedText) {
    auto keep = text.substr(0, kMaxSanitizedText);
    auto nl = keep.rfind('\n');
    keep = keep.substr(0, nl == std::string_view::npos ? 0 : nl + 1);
    cut = text.size() - keep.size();
    text = keep;
  }
  bool first = true;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto nl = text.find('\n', pos);
    auto line = sanitizer.line(bounded_line(
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos)));
    if (line) {
      if (!first) out += '\n';
      out += *line;
      first = false;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  // Keep a final newline (the loop emits one per line but the last).
  if (!text.empty() && text.back() == '\n' && !out.empty() && out.back() != '\n') out += '\n';
  if (cut > 0)
    out += "[text cut: " + std::to_string(cut) + " more bytes; the limit is " +
           std::to_string(kMaxSanitizedText) + "]\n";
  return std::move(sanitizer.result());
}

std::string sanitize(std::string_view text, const SanitizeOptions& options) {
  return sanitize_counting(text, options).text;
}

namespace detail {

std::vector<PatternMatch> row_matches(const RuleRow& row, std::string_view line) {
  const auto& rules = compiled_rules().rules;
  auto index = static_cast<std::size_t>(&row - rule_table().data());
  std::vector<PatternMatch> out;
  if (index >= rules.size()) return out;
  std::size_t from = 0;
  while (auto m = next_match(rules[index], line, from)) {
    from = m->length() == 0 ? m->position() + 1 : m->end();
    out.push_back(std::move(*m));
  }
  return out;
}

std::vector<bool> rows_with_literals_in(std::string_view line) {
  const auto& rules = compiled_rules().rules;
  const std::vector<bool> present = literals_present(line);
  std::vector<bool> out;
  out.reserve(rules.size());
  for (const auto& rule : rules)
    out.push_back(rule.literal_index < 0 || present[static_cast<std::size_t>(rule.literal_index)]);
  return out;
}

std::vector<std::string> rule_pattern_errors() {
  std::vector<std::string> errors;
  for (const auto& row : rule_table()) {
    auto c = row.icase ? Pattern::Case::insensitive : Pattern::Case::sensitive;
    for (const char* p : {row.pattern, row.block_end})
      if (p)
        if (auto e = Pattern::compile_error(p, c))
          errors.push_back(std::string(row.id) + ": " + *e);
    RE2 re(row.pattern, pattern_options(c));
    if (row.match_is_group_1 && re.ok() && re.NumberOfCapturingGroups() < 1)
      errors.push_back(std::string(row.id) + ": match_is_group_1 without a group");
  }
  return errors;
}

}  // namespace detail

std::vector<RedactionRule> redaction_rules() {
  std::vector<RedactionRule> rules;
  for (const auto& row : detail::rule_table()) rules.push_back({row.id, row.cls, row.what});
  return rules;
}

}  // namespace jetgate::report
