#include "jetgate/facts/l4t.hpp"

#include <array>
#include <cctype>
#include <regex>

#include "jetgate/facts/text.hpp"

namespace jetgate::facts {

Result<std::string> parse_nv_tegra_release(std::string_view text) {
  auto lines = split_lines(text);
  if (lines.empty() || trim(lines.front()).empty())
    return make_error("empty file", "", "expected a line like \"# R36 (release), REVISION: 4.3, ...\"");
  std::string first(trim(lines.front()));
  if (first.size() > 512 || !is_printable_text(first))
    return make_error("first line is not a release line (binary or overlong)");
  static const std::regex release(R"(^#\s*R(\d{1,3})\s*\(release\))");
  static const std::regex revision(R"(REVISION:\s*(\d{1,3})\.(\d{1,3})(?:[,\s]|$))");
  std::smatch m, r;
  if (!std::regex_search(first, m, release))
    return make_error("no \"# R<major> (release)\" at the start of the first line: \"" + first + "\"");
  if (!std::regex_search(first, r, revision))
    return make_error("no \"REVISION: <minor>.<patch>\" in the first line: \"" + first + "\"");
  return m[1].str() + "." + r[1].str() + "." + r[2].str();
}

std::optional<std::string> l4t_from_package_version(std::string_view version) {
  static const std::regex form(R"(^(?:\d+:)?(\d{1,3}\.\d{1,3}\.\d{1,3})(?:[-+~].*)?$)");
  std::string v(trim(version));
  std::smatch m;
  if (v.size() > 128 || !std::regex_match(v, m, form)) return std::nullopt;
  return m[1].str();
}

std::optional<std::string> jetpack_from_package_version(std::string_view version) {
  static const std::regex form(R"(^(?:\d+:)?(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?:[-+~].*)?$)");
  std::string v(trim(version));
  std::smatch m;
  if (v.size() > 128 || !std::regex_match(v, m, form)) return std::nullopt;
  return m[1].str();
}

std::optional<std::string> jetpack_for_l4t(std::string_view l4t) {
  // NVIDIA's release notes pair each L4T (Jetson Linux) release with one
  // JetPack. Kept in one table so a new release is a one-line change.
  struct Row {
    std::string_view l4t, jetpack;
  };
  static constexpr std::array<Row, 30> table{{
      {"39.2.0", "7.2"},   {"38.4.0", "7.1"},   {"38.2.2", "7.0"},   {"38.2.1", "7.0"},
      {"38.2.0", "7.0"},   {"36.5.0", "6.2.2"}, {"36.4.7", "6.2.1"}, {"36.4.4", "6.2.1"},
      {"36.4.3", "6.2"},   {"36.4.0", "6.1"},   {"36.3.0", "6.0"},   {"36.2.0", "6.0 DP"},
      {"35.6.0", "5.1.4"}, {"35.5.0", "5.1.3"}, {"35.4.1", "5.1.2"}, {"35.3.1", "5.1.1"},
      {"35.2.1", "5.1"},   {"35.1.0", "5.0.2"}, {"32.7.6", "4.6.6"}, {"32.7.5", "4.6.5"},
      {"32.7.4", "4.6.4"}, {"32.7.3", "4.6.3"}, {"32.7.2", "4.6.2"}, {"32.7.1", "4.6.1"},
      {"32.6.1", "4.6"},   {"32.5.1", "4.5.1"}, {"32.5.0", "4.5"},   {"32.4.4", "4.4.1"},
      {"32.4.3", "4.4"},   {"32.3.1", "4.3"},
  }};
  for (const auto& row : table)
    if (row.l4t == l4t) return std::string(row.jetpack);
  return std::nullopt;
}

std::map<std::string, std::string> parse_dpkg_status(std::string_view text) {
  std::map<std::string, std::string> installed;
  std::string package, version, status;
  auto flush = [&] {
    if (!package.empty() && !version.empty() && status.find("installed") != std::string::npos &&
        status.rfind("install ", 0) == 0 && status.find("not-installed") == std::string::npos &&
        status.find("config-files") == std::string::npos)
      installed[package] = version;
    package.clear();
    version.clear();
    status.clear();
  };
  for (auto line : split_lines(text)) {
    if (trim(line).empty()) {
      flush();
      continue;
    }
    if (line.front() == ' ' || line.front() == '\t') continue;  // continuation of a field
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto key = line.substr(0, colon);
    auto value = std::string(trim(line.substr(colon + 1)));
    if (key == "Package") package = value;
    else if (key == "Version") version = value;
    else if (key == "Status") status = value;
  }
  flush();
  return installed;
}

}  // namespace jetgate::facts
