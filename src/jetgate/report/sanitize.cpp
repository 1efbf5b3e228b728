#include "jetgate/report/sanitize.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <regex>

#include "jetgate/core/utf8.hpp"
#include "jetgate/report/sanitize_rules.hpp"

namespace jetgate::report {
namespace {

using detail::RuleRow;

std::regex compile(const char* pattern, bool icase) {
  auto flags = std::regex::ECMAScript | std::regex::optimize;
  if (icase) flags |= std::regex::icase;
  return std::regex(pattern, flags);
}

struct CompiledRule {
  const RuleRow* row;
  std::regex pattern;
  std::optional<std::regex> block_end;
  const char* literals;  // RuleRow::literals
};

const std::vector<CompiledRule>& compiled_rules() {
  static const std::vector<CompiledRule> rules = [] {
    std::vector<CompiledRule> out;
    for (const auto& row : detail::rule_table()) {
      CompiledRule c{&row, compile(row.pattern, row.icase), std::nullopt, row.literals};
      if (row.block_end) c.block_end = compile(row.block_end, row.icase);
      out.push_back(std::move(c));
    }
    return out;
  }();
  return rules;
}

// A rule for values known to identify someone (this machine's host name, the
// evidence's serial numbers): whole words only.
struct KnownValue {
  std::string id, cls;
  std::regex pattern;
};

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

std::string escape_regex(const std::string& literal) {
  static const std::string kSpecial = R"(\^$.|?*+()[]{})";
  std::string out;
  for (char c : literal) {
    if (kSpecial.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<KnownValue> known_value_rules(const SanitizeOptions& o) {
  std::vector<KnownValue> rules;
  auto add = [&](const std::vector<std::string>& values, const char* id, const char* cls,
                 const char* tail) {
    for (const auto& v : values)
      if (!is_generic_name(v))
        rules.push_back({id, cls, compile(("(?:" + escape_regex(v) + ")" + tail).c_str(), true)});
  };
  add(o.hostnames, "known-host", "host", R"((?:\.[A-Za-z0-9-]{1,63}){0,8})");
  add(o.users, "known-user", "user", "");
  add(o.serials, "known-serial", "serial", "");
  return rules;
}

char char_at(const std::string& line, std::ptrdiff_t pos) {
  return pos < 0 || static_cast<std::size_t>(pos) >= line.size()
             ? ' '
             : line[static_cast<std::size_t>(pos)];
}

template <typename ReplaceFn>
std::string apply(const std::string& line, const std::regex& pattern, ReplaceFn replace) {
  std::string out;
  std::size_t last = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    if (m.length(0) == 0) continue;
    std::optional<std::string> replacement = replace(m);
    if (!replacement) continue;
    auto pos = static_cast<std::size_t>(m.position(0));
    out.append(line, last, pos - last);
    out += *replacement;
    last = pos + static_cast<std::size_t>(m.length(0));
  }
  out.append(line, last, std::string::npos);
  return out;
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
      std::smatch end;
      if (!std::regex_search(text, end, *in_block_->block_end)) return std::nullopt;
      text = text.substr(static_cast<std::size_t>(end.position(0) + end.length(0)));
      in_block_ = nullptr;
      if (text.find_first_not_of(" \t") == std::string::npos) return std::nullopt;
    }
    // A blank line has nothing to redact; skipping the rule table keeps a text
    // of many short lines cheap.
    if (text.find_first_not_of(" \t") == std::string::npos) return text;
    for (const auto& rule : compiled_rules()) {
      if (!detail::holds_any_literal(text, rule.literals)) continue;
      text = rule.block_end ? block_rule(text, rule) : row_rule(text, rule);
    }
    for (const auto& k : known_)
      text = apply(text, k.pattern, [&](const std::smatch& m) -> std::optional<std::string> {
        char b = char_at(text, m.position(0) - 1), a = char_at(text, m.position(0) + m.length(0));
        if (detail::is_word_char(b) || b == '-' || detail::is_word_char(a) || a == '-')
          return std::nullopt;
        ++result_.redactions[k.id];
        return "[redacted:" + k.cls + "]";
      });
    return text;
  }

  SanitizeResult& result() { return result_; }

 private:
  std::string row_rule(const std::string& text, const CompiledRule& rule) {
    return apply(text, rule.pattern, [&](const std::smatch& m) -> std::optional<std::string> {
      if (rule.row->check && !rule.row->check(m, text)) return std::nullopt;
      ++result_.redactions[rule.row->id];
      return m.format(rule.row->format);
    });
  }

  // BEGIN ... END on this line is replaced; a BEGIN without its END hides the
  // rest of the line and every line up to the END.
  std::string block_rule(const std::string& text, const CompiledRule& rule) {
    std::string out;
    std::string rest = text;
    std::smatch begin;
    while (std::regex_search(rest, begin, rule.pattern)) {
      out += begin.prefix().str() + rule.row->format;
      ++result_.redactions[rule.row->id];
      std::string after = begin.suffix().str();
      std::smatch end;
      if (!std::regex_search(after, end, *rule.block_end)) {
        in_block_ = &rule;
        return out;
      }
      rest = end.suffix().str();
    }
    return out + rest;
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

std::vector<RedactionRule> redaction_rules() {
  std::vector<RedactionRule> rules;
  for (const auto& row : detail::rule_table()) rules.push_back({row.id, row.cls, row.what});
  return rules;
}

}  // namespace jetgate::report
