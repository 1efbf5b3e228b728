// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/text.hpp"

#include <cctype>
#include <charconv>

namespace jetgate::facts {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

std::vector<std::string> split_nul_list(std::string_view bytes) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    if (i == bytes.size() || bytes[i] == '\0') {
      auto item = trim(bytes.substr(start, i - start));
      if (!item.empty()) out.emplace_back(item);
      start = i + 1;
    }
  }
  return out;
}

bool starts_with_icase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) !=
        std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

std::optional<std::string> first_dotted_version(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '.')) continue;
    std::size_t j = i;
    bool dot = false;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) ||
                            (s[j] == '.' && j + 1 < s.size() &&
                             std::isdigit(static_cast<unsigned char>(s[j + 1]))))) {
      dot = dot || s[j] == '.';
      ++j;
    }
    if (dot) return std::string(s.substr(i, j - i));
    i = j;
  }
  return std::nullopt;
}

std::optional<std::string> fact_text(std::string_view s, std::size_t max_len) {
  auto t = trim(s);
  if (t.empty() || t.size() > max_len || !is_printable_text(t)) return std::nullopt;
  return std::string(t);
}

bool is_printable_text(std::string_view s) {
  for (unsigned char c : s)
    if (c != '\t' && c != '\n' && c != '\r' && (c < 0x20 || c > 0x7e)) return false;
  return true;
}

namespace {
std::vector<long> version_parts(std::string_view v) {
  std::vector<long> parts;
  while (true) {
    auto dot = v.find('.');
    auto piece = v.substr(0, dot);
    long n = 0;
    std::from_chars(piece.data(), piece.data() + piece.size(), n);
    parts.push_back(n);
    if (dot == std::string_view::npos) break;
    v.remove_prefix(dot + 1);
  }
  return parts;
}
}  // namespace

int compare_versions(std::string_view a, std::string_view b) {
  auto pa = version_parts(a), pb = version_parts(b);
  std::size_t n = std::max(pa.size(), pb.size());
  pa.resize(n, 0);
  pb.resize(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (pa[i] != pb[i]) return pa[i] < pb[i] ? -1 : 1;
  return 0;
}

bool is_numeric_version(std::string_view s, int nparts) {
  int parts = 1;
  if (s.empty() || s.size() > 32) return false;
  bool need_digit = true;
  for (char c : s) {
    if (c == '.') {
      if (need_digit) return false;
      ++parts;
      need_digit = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      need_digit = false;
    } else {
      return false;
    }
  }
  return !need_digit && parts == nparts;
}

}  // namespace jetgate::facts
