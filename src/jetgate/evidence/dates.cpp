// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/dates.hpp"

#include <fmt/format.h>

#include <charconv>
#include <ctime>

namespace jetgate::evidence {
namespace {

// Digits only (no sign, no spaces): from_chars alone would accept "-1" or "+1".
std::optional<int> digits(std::string_view s) {
  if (s.empty()) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<Date> date_from_parts(std::string_view y, std::string_view m, std::string_view d) {
  auto yy = digits(y), mm = digits(m), dd = digits(d);
  if (!yy || !mm || !dd) return std::nullopt;
  Date date{std::chrono::year{*yy}, std::chrono::month{static_cast<unsigned>(*mm)},
            std::chrono::day{static_cast<unsigned>(*dd)}};
  if (!date.ok()) return std::nullopt;
  return date;
}

}  // namespace

std::optional<Date> parse_iso_date(std::string_view t) {
  if (t.size() != 10 || t[4] != '-' || t[7] != '-') return std::nullopt;
  return date_from_parts(t.substr(0, 4), t.substr(5, 2), t.substr(8, 2));
}

std::string to_string(Date d) {
  return fmt::format("{:04d}-{:02d}-{:02d}", static_cast<int>(d.year()),
                     static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
}

long days_between(Date a, Date b) {
  return static_cast<long>((std::chrono::sys_days{b} - std::chrono::sys_days{a}).count());
}

Date add_days(Date d, long days) {
  return Date{std::chrono::sys_days{d} + std::chrono::days{days}};
}

Date today_utc() {
  return Date{std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now())};
}

std::string utc_timestamp_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::optional<std::int64_t> utc_seconds_of_timestamp(std::string_view t) {
  // YYYY-MM-DDTHH:MM:SS, then optional .fraction, then Z or +HH:MM / -HH:MM.
  if (t.size() < 20 || (t[10] != 'T' && t[10] != 't') || t[13] != ':' || t[16] != ':')
    return std::nullopt;
  auto date = parse_iso_date(t.substr(0, 10));
  auto hh = digits(t.substr(11, 2)), mi = digits(t.substr(14, 2)), ss = digits(t.substr(17, 2));
  if (!date || !hh || !mi || !ss || *hh > 23 || *mi > 59 || *ss > 60) return std::nullopt;
  std::string_view rest = t.substr(19);
  if (!rest.empty() && rest.front() == '.') {
    std::size_t n = 1;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
    if (n == 1) return std::nullopt;
    rest.remove_prefix(n);
  }
  long offset_minutes = 0;
  if (rest == "Z" || rest == "z") {
    offset_minutes = 0;
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    auto oh = digits(rest.substr(1, 2)), om = digits(rest.substr(4, 2));
    if (!oh || !om || *oh > 23 || *om > 59) return std::nullopt;
    offset_minutes = (*oh * 60L + *om) * (rest[0] == '-' ? -1 : 1);
  } else {
    return std::nullopt;
  }
  const std::int64_t day = std::chrono::sys_days(*date).time_since_epoch().count();
  return day * 86400 + *hh * 3600L + *mi * 60L + *ss - offset_minutes * 60L;
}

std::optional<Date> utc_date_of_timestamp(std::string_view t) {
  auto seconds = utc_seconds_of_timestamp(t);
  if (!seconds) return std::nullopt;
  // Floor division: an instant before 1970 still lands on its own day.
  std::int64_t day = *seconds / 86400;
  if (*seconds % 86400 < 0) --day;
  return Date{std::chrono::sys_days(std::chrono::days(day))};
}

}  // namespace jetgate::evidence
