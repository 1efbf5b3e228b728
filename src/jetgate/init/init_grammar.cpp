// SPDX-License-Identifier: Apache-2.0
#include "jetgate/init/init_grammar.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "jetgate/core/json_text.hpp"
#include "jetgate/core/pattern.hpp"

namespace jetgate::init {
namespace {

// distribution/reference's grammar, written out.
#define JG_ALNUM "[a-z0-9]+"
#define JG_SEPARATOR "(?:[._]|__|[-]+)"
#define JG_PATH_COMPONENT JG_ALNUM "(?:" JG_SEPARATOR JG_ALNUM ")*"
#define JG_DOMAIN_COMPONENT "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
// The first component names a registry only when it has a '.' or a port, or
// is localhost (otherwise it is the image's first path component).
#define JG_DOMAIN                                                     \
  "(?:(?:localhost|" JG_DOMAIN_COMPONENT "(?:\\." JG_DOMAIN_COMPONENT \
  ")+)(?::[0-9]+)?|" JG_DOMAIN_COMPONENT ":[0-9]+)"
#define JG_TAG "[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
#define JG_DIGEST "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"

}  // namespace

bool is_image_reference(std::string_view s) {
  static const Pattern ref("(?:" JG_DOMAIN "/)?" JG_PATH_COMPONENT "(?:/" JG_PATH_COMPONENT
                           ")*(?::" JG_TAG "(?:@" JG_DIGEST ")?|@" JG_DIGEST ")");
  return s.size() <= 255 && ref.full_matches(s);
}

bool is_git_ref_name(std::string_view s) {
  static const Pattern alphabet("[A-Za-z0-9._/-]{1,200}");
  if (!alphabet.full_matches(s) || s.front() == '-' || s.front() == '/' || s.back() == '/' ||
      s.back() == '.')
    return false;
  if (s.find("..") != std::string_view::npos || s.find("//") != std::string_view::npos ||
      s.find("/.") != std::string_view::npos || s.front() == '.')
    return false;
  std::size_t lock = s.size() >= 5 ? s.size() - 5 : std::string_view::npos;
  if (lock != std::string_view::npos && s.substr(lock) == ".lock") return false;
  return s.find(".lock/") == std::string_view::npos;
}

bool is_https_repository_url(std::string_view s) {
  static const Pattern url("https://" JG_DOMAIN "(?:/[A-Za-z0-9._~-]+)+/?");
  return s.size() <= 300 && url.full_matches(s) && s.find("/../") == std::string_view::npos &&
         s.substr(s.size() - 3) != "/.." && s.find("/./") == std::string_view::npos;
}

bool is_repository_relative_path(std::string_view s) {
  static const Pattern segment("[A-Za-z0-9._+][A-Za-z0-9._+-]{0,254}");
  if (s.empty() || s.size() > 1024) return false;
  std::size_t begin = 0;
  while (begin <= s.size()) {
    std::size_t end = std::min(s.find('/', begin), s.size());
    std::string_view part = s.substr(begin, end - begin);
    if (part.empty() || part == "." || part == ".." || !segment.full_matches(part)) return false;
    begin = end + 1;
  }
  return true;
}

bool is_release_version(std::string_view s) {
  static const Pattern v("[0-9]+(?:\\.[0-9]+){0,3}(?:-[A-Za-z0-9][A-Za-z0-9.]{0,30})?");
  return s.size() <= 64 && v.full_matches(s);
}

bool is_sha256_hex(std::string_view s) {
  static const Pattern h("[0-9a-f]{64}");
  return h.full_matches(s);
}

bool is_pip_word(std::string_view s) {
  static const Pattern w("[A-Za-z0-9._+=/:@\\[\\],<>~!-]{1,200}");
  return w.full_matches(s);
}

bool is_dns1123_label(std::string_view s) {
  static const Pattern label("[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?");
  return label.full_matches(s);
}

bool is_dns1123_subdomain(std::string_view s) {
  static const Pattern name(
      "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*");
  if (s.empty() || s.size() > 253 || !name.full_matches(s)) return false;
  std::size_t begin = 0;
  while (begin <= s.size()) {
    std::size_t end = std::min(s.find('.', begin), s.size());
    if (end - begin > 63) return false;
    begin = end + 1;
  }
  return true;
}

namespace {

// One number of a cron field, in [lo, hi]; nullopt when not.
std::optional<int> cron_number(std::string_view s, int lo, int hi) {
  if (s.empty() || s.size() > 2) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

bool cron_field(std::string_view f, int lo, int hi) {
  if (f.empty()) return false;
  std::size_t begin = 0;
  while (begin <= f.size()) {
    std::size_t end = std::min(f.find(',', begin), f.size());
    std::string_view item = f.substr(begin, end - begin);
    std::string_view range = item;
    if (auto slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      if (!cron_number(item.substr(slash + 1), 1, hi)) return false;
    }
    if (range != "*") {
      auto dash = range.find('-');
      if (dash == std::string_view::npos) {
        if (!cron_number(range, lo, hi)) return false;
      } else {
        auto a = cron_number(range.substr(0, dash), lo, hi);
        auto b = cron_number(range.substr(dash + 1), lo, hi);
        if (!a || !b || *a > *b) return false;
      }
    }
    begin = end + 1;
  }
  return true;
}

}  // namespace

bool is_cron_schedule(std::string_view s) {
  static constexpr int kLo[] = {0, 0, 1, 1, 0};
  static constexpr int kHi[] = {59, 23, 31, 12, 6};
  if (s.size() > 200) return false;
  std::size_t begin = 0;
  int field = 0;
  while (begin <= s.size()) {
    std::size_t end = std::min(s.find(' ', begin), s.size());
    if (field == 5 || !cron_field(s.substr(begin, end - begin), kLo[field], kHi[field]))
      return false;
    ++field;
    begin = end + 1;
  }
  return field == 5;
}

Status check_inside_project(const std::string& root, const std::string& rel) {
  namespace stdfs = std::filesystem;
  std::error_code ec;
  stdfs::path real_root = stdfs::canonical(root, ec);
  if (ec) return make_error("cannot resolve the project directory: " + ec.message(), root);
  // Every existing directory on the way, links resolved, must stay inside.
  stdfs::path at = real_root;
  stdfs::path parent = stdfs::path(rel).parent_path();
  for (const auto& part : parent) {
    at /= part;
    auto st = stdfs::symlink_status(at, ec);
    if (ec || !stdfs::exists(st)) break;  // the rest is created, inside
    stdfs::path real = stdfs::canonical(at, ec);
    auto inside = real.lexically_relative(real_root);
    if (ec || inside.empty() || *inside.begin() == "..")
      return make_error(
          fmt::format("{} leads out of the project (to {}): jetgate init writes only inside it",
                      quoted_text((stdfs::path(root) / rel).parent_path().string()),
                      quoted_text(ec ? std::string("nowhere") : real.string())),
          root, "remove the symbolic link, or run jetgate init in the checkout it belongs to");
    at = real;
  }
  return Ok{};
}

}  // namespace jetgate::init
