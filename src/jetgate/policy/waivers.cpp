// SPDX-License-Identifier: Apache-2.0
#include "jetgate/policy/waivers.hpp"

#include <fmt/format.h>

#include <map>

#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/policy/policy_parse_detail.hpp"

namespace jetgate::policy {
namespace {

using evidence::Date;

const char* const kWaiverFields[] = {"gate",   "reason",  "issue",
                                     "opened", "expires", "blocked_claim"};

bool blank(const nlohmann::json& v) {
  if (!v.is_string()) return true;
  return v.get<std::string>().find_first_not_of(" \t\r\n") == std::string::npos;
}

bool owner_or_name(std::string_view s) {
  if (s.empty() || s.size() > 100) return false;
  // "." and ".." are path segments, not repositories: the URL would resolve elsewhere.
  if (s.find_first_not_of('.') == std::string_view::npos) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

std::string issue_hint(const std::optional<std::string>& repository) {
  return repository ? fmt::format("use https://github.com/{}/issues/N", *repository)
                    : std::string("use https://github.com/OWNER/NAME/issues/N");
}

// Checks one waiver; returns it when every rule holds.
std::optional<Waiver> review_one(const nlohmann::json& w, const Policy& policy, Date today,
                                 std::vector<PolicyIssue>& issues) {
  const std::string id = w["gate"].get<std::string>();
  auto add = [&](std::string what, std::string next) {
    issues.push_back({id, "environment waiver " + std::move(what), std::move(next)});
  };
  bool valid = true;
  const Gate* gate = find_gate(policy, id);
  if (!gate) {
    add("references an unknown gate", "fix the waiver's \"gate\" or remove the waiver");
    valid = false;
  } else if (gate->software_only) {
    add("waives a software-only gate, which can never be waived",
        "fix the gate and run it; software-only gates need no special hardware");
    valid = false;
  }
  for (const char* f : {"reason", "blocked_claim"})
    if (blank(w[f])) {
      add(fmt::format("{} must be non-empty", f),
          "say why the gate cannot run and which claim is blocked");
      valid = false;
    }
  if (!w["issue"].is_string() ||
      !is_canonical_issue_url(w["issue"].get<std::string>(), policy.repository)) {
    add(fmt::format("issue {} is not a canonical issue URL", w["issue"].dump()),
        issue_hint(policy.repository));
    valid = false;
  }
  auto opened = w["opened"].is_string() ? evidence::parse_iso_date(w["opened"].get<std::string>())
                                        : std::nullopt;
  auto expires = w["expires"].is_string()
                     ? evidence::parse_iso_date(w["expires"].get<std::string>())
                     : std::nullopt;
  if (!opened || !expires) {
    add("opened/expires must be ISO dates (YYYY-MM-DD)",
        "e.g. \"opened\": \"2026-11-01\", \"expires\": \"2026-11-30\"");
    return std::nullopt;
  }
  if (*opened > today) {
    add(fmt::format("opens in the future: {}", evidence::to_string(*opened)),
        "set opened to the day the waiver was agreed");
    valid = false;
  }
  if (*expires < *opened) {
    add("expires before it opens", "fix the dates");
    valid = false;
  } else if (evidence::days_between(*opened, *expires) > kMaxWaiverDays) {
    add(fmt::format("exceeds {} days (opened {}, expires {})", kMaxWaiverDays,
                    evidence::to_string(*opened), evidence::to_string(*expires)),
        fmt::format(
            "expire it at most {} days after it opened, then renew it with a fresh decision",
            kMaxWaiverDays));
    valid = false;
  }
  if (*expires < today) {
    add(fmt::format("expired on {}", evidence::to_string(*expires)),
        "run the gate, or renew the waiver with a new decision");
    valid = false;
  }
  if (!valid) return std::nullopt;
  return Waiver{id,
                w["reason"].get<std::string>(),
                w["issue"].get<std::string>(),
                w["blocked_claim"].get<std::string>(),
                *opened,
                *expires};
}

}  // namespace

bool is_canonical_issue_url(std::string_view url, const std::optional<std::string>& repository) {
  constexpr std::string_view prefix = "https://github.com/";
  if (url.substr(0, prefix.size()) != prefix) return false;
  std::string_view rest = url.substr(prefix.size());
  auto s1 = rest.find('/');
  if (s1 == std::string_view::npos) return false;
  auto s2 = rest.find('/', s1 + 1);
  if (s2 == std::string_view::npos) return false;
  std::string_view owner = rest.substr(0, s1), name = rest.substr(s1 + 1, s2 - s1 - 1);
  if (!owner_or_name(owner) || !owner_or_name(name)) return false;
  if (repository && fmt::format("{}/{}", owner, name) != *repository) return false;
  std::string_view tail = rest.substr(s2 + 1);
  constexpr std::string_view issues = "issues/";
  if (tail.substr(0, issues.size()) != issues) return false;
  std::string_view number = tail.substr(issues.size());
  if (number.empty() || number.size() > 12 || number.front() == '0') return false;
  for (char c : number)
    if (c < '0' || c > '9') return false;
  return true;
}

WaiverReview review_waivers(const Policy& policy, Date today) {
  WaiverReview out;
  const auto& waivers = policy.environment_waivers;
  if (waivers.is_null()) return out;
  if (!waivers.is_array()) {
    out.issues.push_back(
        {"policy", "environment_waivers must be a list", "write [] when there are none"});
    return out;
  }
  // Which waiver of a duplicated gate is meant is unknowable, so none of them is active.
  std::map<std::string, int> waivers_per_gate;
  for (const auto& w : waivers)
    if (w.is_object() && w.contains("gate") && w["gate"].is_string())
      ++waivers_per_gate[w["gate"].get<std::string>()];
  for (std::size_t i = 0; i < waivers.size(); ++i) {
    const auto& w = waivers[i];
    std::string label = fmt::format("environment waiver {}", i);
    if (!w.is_object()) {
      out.issues.push_back(
          {"policy", label + " must be an object",
           "write {\"gate\", \"reason\", \"issue\", \"opened\", \"expires\", \"blocked_claim\"}"});
      continue;
    }
    std::vector<std::string> missing;
    for (const char* f : kWaiverFields)
      if (!w.contains(f)) missing.push_back(f);
    if (!missing.empty()) {
      std::string subject =
          w.contains("gate") && w["gate"].is_string() ? w["gate"].get<std::string>() : "policy";
      out.issues.push_back(
          {subject, fmt::format("{} is missing fields: {}", label, fmt::join(missing, ", ")),
           "a waiver needs gate, reason, issue, opened, expires and blocked_claim"});
      continue;
    }
    // A misspelt key is an error, and the waiver it sits in waives nothing.
    std::size_t issues_before = out.issues.size();
    detail::IssueSink sink{&out.issues, nullptr};
    std::string subject =
        w["gate"].is_string() ? w["gate"].get<std::string>() : std::string("policy");
    detail::reject_unknown_keys(
        w, {"gate", "reason", "issue", "opened", "expires", "blocked_claim"}, label, subject, sink);
    if (out.issues.size() != issues_before) continue;
    if (!w["gate"].is_string() || w["gate"].get<std::string>().empty()) {
      out.issues.push_back({"policy", label + " gate must be a non-empty string",
                            "set \"gate\" to the id of the gate the waiver is for"});
      continue;
    }
    const std::string id = w["gate"].get<std::string>();
    if (auto st = evidence::validate_gate_id(id, label); !st) {
      out.issues.push_back({"policy", label + ": " + st.error().what, st.error().hint});
      continue;
    }
    auto ok = review_one(w, policy, today, out.issues);
    if (waivers_per_gate[id] > 1)
      out.issues.push_back(
          {id,
           fmt::format("{} is a duplicate environment waiver ({} waivers name this gate; "
                       "none is active)",
                       label, waivers_per_gate[id]),
           "keep one waiver per gate"});
    else if (ok)
      out.active.emplace(id, std::move(*ok));
  }
  return out;
}

std::vector<std::string> stale_exception_problems(const StaleException& e,
                                                  const std::optional<std::string>& repository,
                                                  Date today) {
  std::vector<std::string> out;
  if (e.reason.find_first_not_of(" \t\r\n") == std::string::npos)
    out.push_back("its reason is blank");
  if (!is_canonical_issue_url(e.issue, repository))
    out.push_back(fmt::format("issue \"{}\" is not a canonical issue URL ({})", e.issue,
                              issue_hint(repository)));
  auto expires = evidence::parse_iso_date(e.expires);
  if (!expires) {
    out.push_back(fmt::format("expiry \"{}\" is not a date (YYYY-MM-DD)", e.expires));
  } else if (*expires < today) {
    out.push_back(fmt::format("it expired on {}", e.expires));
  } else if (evidence::days_between(today, *expires) > kMaxStaleExceptionDays) {
    out.push_back(
        fmt::format("its expiry {} is more than {} days away", e.expires, kMaxStaleExceptionDays));
  }
  return out;
}

}  // namespace jetgate::policy
