// SPDX-License-Identifier: Apache-2.0
// Redaction for text that leaves the machine (an issue body, a shared
// report): secrets (private keys, tokens of GitHub, GitLab, Slack, AWS,
// Hugging Face, NGC and others, JWTs, webhook URLs, signed-URL signatures,
// passwords in URLs, settings and options), e-mail addresses, local paths,
// environment variable values, host and user names, IPv4/IPv6 and MAC
// addresses, serial numbers and device UUIDs. Each is replaced by
// "[redacted:CLASS]" so a reader sees that something was there. Version
// strings (36.4.3, 2.5.0a0+872d972e41.nv24.08, cuDNN 9.3.0.75), commit SHAs,
// sha256 digests, dates and public URLs are kept: the report is useless
// without them. The rules are one table (report/sanitize_rules.cpp), tested
// on tests/fixtures/sanitize/; docs/claims.md lists them.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::report {

struct SanitizeOptions {
  // Values known to identify this machine or person, redacted wherever they
  // appear as a whole word; a host name's short name ("build7" of
  // "build7.example.org") too. Generic names ("ubuntu", "nvidia", "root",
  // "runner", ...) and values under 3 characters are ignored: replacing them
  // would mangle the report without hiding anyone.
  std::vector<std::string> hostnames, users, serials;
};

// The CLI fills hostnames and users from the machine it runs on
// (cli/environment.hpp); this library never reads them itself.

// Lines longer than kMaxSanitizedLine are cut (an issue body has no use for
// them and it bounds the work). Bytes that are not UTF-8 become U+FFFD,
// control characters spaces, and zero-width and bidi characters are dropped
// (so none can split a token from its rule or reorder what a reader sees).
inline constexpr std::size_t kMaxSanitizedLine = 4096;

// Text beyond kMaxSanitizedText bytes is cut at a line boundary, with a line
// saying how much was cut: the work stays bounded on any input, and GitHub
// refuses issue bodies over 65,536 characters anyway.
inline constexpr std::size_t kMaxSanitizedText = 65536;

std::string sanitize(std::string_view text, const SanitizeOptions& options = {});

struct SanitizeResult {
  std::string text;
  std::map<std::string, int> redactions;  // rule id -> how many matches it replaced
};

// sanitize(), also saying which rules fired ("known-host", "known-user" and
// "known-serial" for the values in options).
SanitizeResult sanitize_counting(std::string_view text, const SanitizeOptions& options = {});

struct RedactionRule {
  std::string id;   // "github-token", "private-key", ...
  std::string cls;  // what replaces a match: [redacted:CLASS]
  std::string what;
};

// The rule table, in the order the rules apply.
std::vector<RedactionRule> redaction_rules();

}  // namespace jetgate::report
