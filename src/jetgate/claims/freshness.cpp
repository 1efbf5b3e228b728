// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/freshness.hpp"

#include <charconv>

namespace jetgate::claims {
namespace {

bool two_digits(std::string_view text, std::size_t pos, int& out) {
  if (pos + 2 > text.size()) return false;
  auto [p, ec] = std::from_chars(text.data() + pos, text.data() + pos + 2, out);
  return ec == std::errc() && p == text.data() + pos + 2 && text[pos] != '-' && text[pos] != '+';
}

}  // namespace

Result<std::chrono::sys_seconds> parse_timestamp(std::string_view text) {
  // The date module validates the whole form; only the time of day is left.
  auto day = evidence::utc_date_of_timestamp(text);
  int hh = 0, mi = 0, ss = 0;
  if (!day || !two_digits(text, 11, hh) || !two_digits(text, 14, mi) || !two_digits(text, 17, ss))
    return make_error(
        "not an ISO-8601 timestamp with a zone: '" + std::string(text.substr(0, 64)) + "'", "",
        "expected e.g. 2026-11-29T16:23:05Z");
  auto local_day = evidence::parse_iso_date(text.substr(0, 10));
  std::string_view zone = text.substr(19);
  if (!zone.empty() && zone.front() == '.') {
    std::size_t n = 1;
    while (n < zone.size() && zone[n] >= '0' && zone[n] <= '9') ++n;
    zone.remove_prefix(n);
  }
  long offset_s = 0;
  int oh = 0, om = 0;
  if (zone.size() == 6 && two_digits(zone, 1, oh) && two_digits(zone, 4, om))
    offset_s = (oh * 3600L + om * 60L) * (zone[0] == '-' ? -1 : 1);
  auto local = std::chrono::sys_seconds{std::chrono::sys_days{*local_day}} +
               std::chrono::hours{hh} + std::chrono::minutes{mi} + std::chrono::seconds{ss};
  return local - std::chrono::seconds{offset_s};
}

Result<Date> today_from_option(const std::string& text) {
  if (text.empty()) return evidence::today_utc();
  auto d = evidence::parse_iso_date(text);
  if (!d)
    return make_error("not a calendar date: '" + text + "'", "--today", "write it as YYYY-MM-DD");
  return *d;
}

}  // namespace jetgate::claims
