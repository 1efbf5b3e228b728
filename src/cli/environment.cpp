// SPDX-License-Identifier: Apache-2.0
#include "cli/environment.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace jetgate::cli {

bool github_actions() {
  const char* v = std::getenv("GITHUB_ACTIONS");
  return v != nullptr && std::string_view(v) == "true";
}

std::optional<std::string> container_image() {
  const char* v = std::getenv(kContainerImageVariable);
  if (v == nullptr || *v == '\0' || std::string_view(v).size() > 512) return std::nullopt;
  return std::string(v);
}

std::string host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

report::SanitizeOptions sanitize_options_for_this_machine() {
  report::SanitizeOptions o;
  if (auto host = host_name(); !host.empty())
    o.hostnames.push_back(std::move(host));  // the sanitizer hides its short name too
  for (const char* var : {"USER", "LOGNAME"})
    if (const char* v = std::getenv(var); v && *v) o.users.emplace_back(v);
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) o.users.emplace_back(pw->pw_name);
  return o;
}

}  // namespace jetgate::cli
