// SPDX-License-Identifier: Apache-2.0
// Calendar dates and UTC timestamps for evidence and waivers. Waiver and
// freshness rules compare whole UTC days (as OBLITERATUS' checker does), so everything here
// works on std::chrono::year_month_day; --today replaces the clock in tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jetgate::evidence {

using Date = std::chrono::year_month_day;

// Strict "YYYY-MM-DD" that names a real day (2026-02-30 is rejected).
std::optional<Date> parse_iso_date(std::string_view text);
std::string to_string(Date d);  // "2026-11-29"

// Days from a to b (b - a); negative when b is before a.
long days_between(Date a, Date b);
Date add_days(Date d, long days);

Date today_utc();
// Now as "YYYY-MM-DDTHH:MM:SSZ" (the form jetgate writes to generated_at).
std::string utc_timestamp_now();

// The UTC day of an ISO-8601 timestamp with an explicit offset:
// "2026-11-29T16:23:05Z" (jetgate) or "2026-11-29T16:23:05.123456+00:00"
// (OBLITERATUS' datetime.isoformat()); fractions and offsets are honoured, so
// "2026-11-30T01:00:00+02:00" is 2026-11-29 in UTC. Naive timestamps (no
// offset) are rejected: their day is ambiguous.
std::optional<Date> utc_date_of_timestamp(std::string_view text);
// The same timestamp as seconds since 1970-01-01T00:00:00Z (fractions dropped); nullopt
// where utc_date_of_timestamp gives nullopt. A leap second (:60) counts as the next second.
std::optional<std::int64_t> utc_seconds_of_timestamp(std::string_view text);

}  // namespace jetgate::evidence
