// SPDX-License-Identifier: Apache-2.0
// Dates for freshness rules, on top of evidence/dates.hpp so `check` and
// `support` count evidence age alike: whole UTC calendar days from the UTC
// date of generated_at to "today" (UTC, or --today). A rule "at most N days
// old" thus gives the same answer all day and is reproducible in tests.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"
#include "jetgate/evidence/dates.hpp"

namespace jetgate::claims {

using Date = evidence::Date;

// The instant of an ISO-8601 timestamp with a zone (the forms
// evidence::utc_date_of_timestamp accepts), to order evidence written on the
// same day. Not for age: age uses whole days.
Result<std::chrono::sys_seconds> parse_timestamp(std::string_view text);

// --today as the user typed it; empty means today in UTC. Errors name the option.
Result<Date> today_from_option(const std::string& text);

// The freshness rule when neither --max-age-days nor a policy gives one.
inline constexpr int kDefaultMaxEvidenceAgeDays = 14;

}  // namespace jetgate::claims
