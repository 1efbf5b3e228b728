// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/nfd_features.hpp"

#include <fmt/format.h>

#include <chrono>
#include <map>

#include "jetgate/core/outcome.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::report {
namespace {

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool label_char(char c) {
  return alnum(c) || c == '-' || c == '_' || c == '.';
}

void trim_ends(std::string& s) {
  std::size_t b = 0;
  while (b < s.size() && !alnum(s[b])) ++b;
  std::size_t e = s.size();
  while (e > b && !alnum(s[e - 1])) --e;
  s = s.substr(b, e - b);
}

// What CI calls CUDA verified: the driver loaded and a kernel ran and gave the
// right answer (the launch probe PASS or WARN).
bool cuda_verified(const record::Record& r) {
  if (r.gpu.driver_loaded != true) return false;
  auto launch = r.probes.find("launch");
  if (launch == r.probes.end() || !launch->second.status) return false;
  auto s = status_from_string(*launch->second.status);
  return s && holds(*s);
}

std::string rfc3339(std::int64_t seconds) {
  using namespace std::chrono;
  const sys_seconds t{std::chrono::seconds(seconds)};
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss hms{t - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

}  // namespace

bool is_label_value(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  for (char c : s)
    if (!label_char(c)) return false;
  return true;
}

bool is_label_name(std::string_view s) {
  return !s.empty() && is_label_value(s);
}

std::string sanitize_label_value(std::string_view raw) {
  // Every character outside the label grammar becomes '-', the ends are
  // trimmed to a letter or digit and the value cut to 63: so only the 63
  // characters from the first letter or digit can survive, and the rest of a
  // long string (a whole document) is never looked at.
  std::size_t first = 0;
  while (first < raw.size() && !alnum(raw[first])) ++first;
  std::string s;
  for (std::size_t i = first; i < raw.size() && s.size() < 63; ++i)
    s += label_char(raw[i]) ? raw[i] : '-';
  trim_ends(s);
  return s;
}

std::string render_nfd_features(const NfdFeaturesInput& in) {
  const record::Record r =
      in.document ? record::read(*in.document, record::Keep::known) : record::Record{};
  // name (after the prefix) -> value; a std::map, so the file is the same bytes
  // for the same document.
  std::map<std::string, std::string> labels;
  auto put = [&](std::string_view name, std::string_view value) {
    const std::string n = sanitize_label_value(name);
    if (!is_label_name(n)) return;
    const std::string v = sanitize_label_value(value);
    if (v.empty()) return;  // nothing known: no label, rather than an empty one
    labels[n] = v;
  };
  put("cuda-verified", cuda_verified(r) ? "true" : "false");
  if (r.head.gate) {
    put("gate", *r.head.gate);
    put("gate-status", r.head.status.value_or(""));
  }
  put("jetpack", r.platform.tegra.jetpack.value_or(""));
  put("l4t", r.platform.tegra.l4t.version.value_or(""));
  put("module", r.platform.tegra.module.value_or(""));
  put("arch", r.platform.arch.value_or(""));
  put("cuda-driver", r.gpu.driver_version.value_or(""));
  put("gpu-count", r.gpu.device_count ? std::to_string(*r.gpu.device_count) : "");
  put("jetgate-version", r.head.jetgate_version.value_or(""));
  for (const auto& [id, p] : r.probes) put("probe." + id, p.status.value_or(""));
  // The sync path's wait per scheduling mode, in the words the textfile and the history
  // use (interrupt_driven, busy_polling, unclear): the one reading of evidence/probe_values.
  for (const auto& reading : evidence::probe_readings(r))
    for (const auto& w : reading.waits) put("sync-wait." + w.mode, w.wait);
  std::string out =
      "# Node labels from jetgate's evidence, for node-feature-discovery's local source\n"
      "# (docs/kubernetes.md). Written by jetgate; the next run replaces this file.\n";
  if (auto t = evidence::utc_seconds_of_timestamp(r.head.generated_at.value_or("")))
    out += "# +expiry-time=" + rfc3339(*t + std::int64_t{in.expiry_hours} * 3600) + "\n";
  else
    // Undated evidence claims nothing: an expiry in the past hides every line.
    out += "# +expiry-time=1970-01-01T00:00:00Z\n";
  for (const auto& [name, value] : labels) {
    std::string line = std::string(kNfdLabelPrefix) + name + "=" + value + "\n";
    if (out.size() + line.size() > kNfdMaxFileBytes) break;
    out += line;
  }
  return out;
}

}  // namespace jetgate::report
