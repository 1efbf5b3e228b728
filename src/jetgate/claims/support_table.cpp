// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/support_table.hpp"

#include <fmt/format.h>

#include <cctype>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/gate_id.hpp"

namespace jetgate::claims {
namespace {

constexpr std::pair<std::string_view, char> kEntities[] = {
    {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}};

std::optional<unsigned> hex_value(std::string_view digits) {
  unsigned v = 0;
  for (char c : digits) {
    unsigned d = 0;
    if (c >= '0' && c <= '9')
      d = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f')
      d = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      d = static_cast<unsigned>(c - 'A' + 10);
    else
      return std::nullopt;
    v = v * 16 + d;
  }
  return v;
}

void append_utf8(std::string& out, unsigned cp) {
  auto byte = [&](unsigned b) { out += static_cast<char>(static_cast<unsigned char>(b)); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

}  // namespace

std::string unescape_cell(std::string_view cell) {
  std::string out;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    if (cell[i] == '\\' && i + 1 < cell.size()) {
      char next = cell[i + 1];
      // CommonMark: a backslash before ASCII punctuation stands for it
      // (report::markdown_cell escapes "\\", "|", "[", "*", ...).
      if (std::ispunct(static_cast<unsigned char>(next))) {
        out += next;
        ++i;
        continue;
      }
      // "\xNN" and "\uNNNN": what report::markdown_cell shows for bytes and
      // characters that cannot be shown as they are.
      std::size_t digits = next == 'x' ? 2 : next == 'u' ? 4 : 0;
      if (digits && i + 2 + digits <= cell.size()) {
        if (auto value = hex_value(cell.substr(i + 2, digits))) {
          if (digits == 2)
            out += static_cast<char>(*value);
          else
            append_utf8(out, *value);
          i += 1 + digits;
          continue;
        }
      }
    }
    // The word joiner markdown_cell writes after "@" is no part of the text.
    if (cell.substr(i, 7) == "&#8288;") {
      i += 6;
      continue;
    }
    bool replaced = false;
    for (const auto& [entity, c] : kEntities) {
      if (cell.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += cell[i];
  }
  return out;
}

std::optional<std::vector<std::string>> split_row(std::string_view line) {
  line = trim_blanks(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return std::nullopt;
  if (line.size() >= 3 && line[line.size() - 2] == '\\') {
    // "\|" at the end is an escaped bar, not the closing one, unless the
    // backslash itself is escaped; count the run of backslashes.
    std::size_t n = 0;
    for (std::size_t i = line.size() - 2; i > 0 && line[i] == '\\'; --i) ++n;
    if (n % 2 == 1) return std::nullopt;
  }
  std::vector<std::string> cells;
  std::string current;
  for (std::size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size()) {
      current += c;
      current += line[++i];
    } else if (c == '|') {
      cells.emplace_back(trim_blanks(current));
      current.clear();
    } else {
      current += c;
    }
  }
  return cells;
}

Result<std::vector<GateClaim>> parse_gate_cell(std::string_view cell) {
  std::vector<GateClaim> gates;
  std::string_view rest = trim_blanks(cell);
  if (rest.empty())
    return make_error("the gates cell is empty", "",
                      "list the claimed gates by id, comma separated");
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view item = trim_blanks(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    GateClaim g;
    auto paren = item.find(" (");
    if (paren != std::string_view::npos) {
      std::string_view date = item.substr(paren + 2);
      if (date.empty() || date.back() != ')' ||
          !evidence::parse_iso_date(date.substr(0, date.size() - 1)))
        return make_error(fmt::format("'{}' is not `gate-id (YYYY-MM-DD)`", item));
      g.evidence_date = std::string(date.substr(0, date.size() - 1));
      item = trim_blanks(item.substr(0, paren));
    }
    if (!evidence::is_valid_gate_id(item))
      return make_error(fmt::format("'{}' is not a gate id", item), "",
                        "gate ids are [a-z0-9][a-z0-9-]*");
    g.gate = std::string(item);
    gates.push_back(std::move(g));
  }
  return gates;
}

std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace jetgate::claims
