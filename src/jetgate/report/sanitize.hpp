// Redaction for text that leaves the machine (an issue body, a shared
// report): environment variable values, host names, user names, IPv4/IPv6
// and MAC addresses, serial numbers and device UUIDs, tokens (GitHub, GitLab,
// Slack, AWS, bearer), e-mail addresses and local paths (/home, /Users, /root,
// /tmp, ~). Each is replaced by "[redacted:CLASS]" so a reader sees that
// something was there. Version strings (36.4.3, 2.5.0a0+872d972e41.nv24.08,
// cuDNN 9.3.0.75), commit SHAs, dates and public URLs are kept: the report is
// useless without them. docs/claims.md lists the rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jetgate::report {

struct SanitizeOptions {
  // Values known to identify this machine or person, redacted wherever they
  // appear as a whole word. Generic names ("ubuntu", "nvidia", "root",
  // "runner", ...) and values under 3 characters are ignored: replacing them
  // would mangle the report without hiding anyone.
  std::vector<std::string> hostnames, users, serials;
};

// The host name, the user (USER, LOGNAME, the passwd entry) of this process.
SanitizeOptions sanitize_options_for_this_machine();

// Lines longer than kMaxSanitizedLine are cut (an issue body has no use for
// them and it bounds the work); control characters become spaces.
inline constexpr std::size_t kMaxSanitizedLine = 4096;

std::string sanitize(std::string_view text, const SanitizeOptions& options = {});

}  // namespace jetgate::report
