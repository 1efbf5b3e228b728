// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/l4t.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "jetgate/core/pattern.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {

Result<std::string> parse_nv_tegra_release(std::string_view text) {
  std::string_view first;
  for (auto line : split_lines(text.substr(0, std::size_t{64} * 1024)))
    if (!trim(line).empty()) {
      first = trim(line);
      break;
    }
  if (first.empty())
    return make_error("empty file", "",
                      "expected a line like \"# R36 (release), REVISION: 4.3, ...\"");
  std::string line(first);
  // Control bytes mean a binary file; other bytes (a BOARD name that is not
  // ASCII) do not stop the release and revision from being read.
  bool binary = std::any_of(line.begin(), line.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
  if (line.size() > 512 || binary)
    return make_error("first line is not a release line (binary or overlong)");
  // [[:space:]] and not RE2's \s: a vertical tab is space too (core/pattern.hpp).
  static const Pattern release(R"((?:^|[[:space:]#,])R(\d{1,3})[[:space:]]*\(release\))");
  // RE2 has no look-ahead: the "," or space that ends the revision is matched
  // (and not used); with nothing after it in the pattern, the same lines match
  // with the same groups.
  static const Pattern revision(
      R"(REVISION:[[:space:]]*(\d{1,3})(?:\.(\d{1,3}))?(?:[,[:space:]]|$))");
  auto m = release.search(line);
  if (!m) return make_error("no \"R<major> (release)\" in the first line: \"" + line + "\"");
  auto r = revision.search(line);
  if (!r)
    return make_error("no \"REVISION: <minor>[.<patch>]\" in the first line: \"" + line + "\"");
  return m->str(1) + "." + r->str(1) + "." + (r->matched(2) ? r->str(2) : std::string("0"));
}

std::optional<std::string> l4t_series_from_kernel_release(std::string_view release) {
  std::string_view r = trim(release);
  if (r.size() > 128) return std::nullopt;
  // "-l4t-r<major>.<minor>" followed by "-", "+", "." (a third part) or the end.
  static const Pattern tag(R"(-l4t-r(\d{2})\.(\d{1,2})(?:[-+.]|$))");
  auto m = tag.search(r);
  if (!m) return std::nullopt;
  return m->str(1) + "." + m->str(2);
}

std::optional<std::string> l4t_from_package_version(std::string_view version) {
  // [^\n\r]: the standard's "." (RE2's takes \r).
  static const Pattern form(R"((?:\d+:)?(\d{1,3}\.\d{1,3}\.\d{1,3})(?:[-+~][^\n\r]*)?)");
  std::string_view v = trim(version);
  auto m = v.size() > 128 ? std::nullopt : form.full_match(v);
  if (!m) return std::nullopt;
  return m->str(1);
}

std::optional<std::string> jetpack_from_package_version(std::string_view version) {
  static const Pattern form(R"((?:\d+:)?(\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)(?:[-+~][^\n\r]*)?)");
  std::string_view v = trim(version);
  auto m = v.size() > 128 ? std::nullopt : form.full_match(v);
  if (!m) return std::nullopt;
  return m->str(1);
}

bool dpkg_status_is_installed(std::string_view status) {
  // "Status: WANT FLAG STATE" (dpkg-query(1)). The files are in place and
  // configured only in these states; what the user wants next (install, hold,
  // deinstall, purge) does not change what is on disk now, so a held
  // nvidia-l4t-core is as installed as any. A reinstreq flag means broken.
  std::istringstream words{std::string(status)};
  std::string want, flag, state, extra;
  if (!(words >> want >> flag >> state) || (words >> extra)) return false;
  static const std::set<std::string, std::less<>> wants{"unknown", "install", "hold", "deinstall",
                                                        "purge"};
  if (!wants.count(want) || flag != "ok") return false;
  return state == "installed" || state == "triggers-pending" || state == "triggers-awaited";
}

std::map<std::string, std::string> parse_dpkg_status(std::string_view text) {
  std::map<std::string, std::string> installed;
  std::string package, version, status;
  auto flush = [&] {
    if (!package.empty() && !version.empty() && dpkg_status_is_installed(status))
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
    if (key == "Package")
      package = value;
    else if (key == "Version")
      version = value;
    else if (key == "Status")
      status = value;
  }
  flush();
  return installed;
}

}  // namespace jetgate::facts
