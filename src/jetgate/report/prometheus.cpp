// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/prometheus.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <vector>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/outcome.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/dates.hpp"

namespace jetgate::report {
namespace {

constexpr std::string_view kLastSuccess = "jetgate_gate_last_success_timestamp_seconds";

// A probe value's unit -> the family it is exported in, and the factor to its base unit.
struct UnitFamily {
  std::string_view unit;
  std::string_view family;
  double factor;
  std::string_view help;
};
constexpr std::array<UnitFamily, 8> kUnits{{
    {"GB/s", "jetgate_probe_bytes_per_second", 1e9, "A probe's measured rate, bytes per second."},
    {"us", "jetgate_probe_seconds", 1e-6, "A probe's measured time, seconds."},
    {"ms", "jetgate_probe_seconds", 1e-3, "A probe's measured time, seconds."},
    {"bytes", "jetgate_probe_bytes", 1, "A probe's measured size, bytes."},
    {"fraction", "jetgate_probe_ratio", 1, "A probe's measured ratio (1 = 100%)."},
    {"percent", "jetgate_probe_ratio", 0.01, "A probe's measured ratio (1 = 100%)."},
    {"tok/s", "jetgate_probe_tokens_per_second", 1, "A probe's measured token rate."},
    {"count", "jetgate_probe_items", 1, "A probe's counted items."},
}};

constexpr std::array<Outcome, 5> kOutcomes{Outcome::pass, Outcome::warn, Outcome::fail,
                                           Outcome::skip, Outcome::not_run};
constexpr std::array<std::string_view, 3> kWaits{"interrupt_driven", "busy_polling", "unclear"};

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string number(double v) {
  if (v == 0) return "0";  // also -0
  return fmt::format("{}", v);
}

struct Family {
  std::string help;
  std::vector<std::pair<Labels, double>> samples;
};

class Writer {
 public:
  void add(std::string_view name, std::string_view help, Labels labels, double value) {
    if (!std::isfinite(value)) return;
    auto& f = families_[std::string(name)];
    if (f.help.empty()) {
      f.help = help;
      order_.emplace_back(name);
    }
    f.samples.emplace_back(std::move(labels), value);
  }
  std::string text() const {
    std::string out;
    // The same few values (gate, node, platform) label every sample: each is
    // escaped once.
    std::map<std::string_view, std::string> escaped;
    auto label_value = [&escaped](const std::string& raw) -> const std::string& {
      auto it = escaped.find(raw);
      if (it == escaped.end()) it = escaped.emplace(raw, prometheus_label_value(raw)).first;
      return it->second;
    };
    for (const auto& name : order_) {
      const auto& f = families_.at(name);
      out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, f.help, name);
      for (const auto& [labels, value] : f.samples) {
        out += name;
        if (!labels.empty()) {
          out += '{';
          for (std::size_t i = 0; i < labels.size(); ++i) {
            if (i) out += ',';
            out += labels[i].first;
            out += "=\"";
            out += label_value(labels[i].second);
            out += '"';
          }
          out += '}';
        }
        out += ' ' + number(value) + '\n';
      }
    }
    return out;
  }

 private:
  std::map<std::string, Family> families_;
  std::vector<std::string> order_;
};

std::string string_or(const nlohmann::json& doc, const keys::Pointer& p, std::string fallback) {
  std::string s = keys::string_at(doc, p);
  return s.empty() ? fallback : s;
}

std::optional<double> timestamp(const nlohmann::json& doc) {
  auto t = evidence::utc_seconds_of_timestamp(keys::string_at(doc, keys::kGeneratedAt));
  if (!t) return std::nullopt;
  return static_cast<double>(*t);
}

void add_probes(Writer& w, const nlohmann::json& doc, const Labels& base) {
  const auto* probes = keys::find(doc, keys::kProbes);
  if (!probes || !probes->is_object()) return;
  for (const auto& [id, p] : probes->items()) {
    if (!p.is_object()) continue;
    Labels labels = base;
    labels.insert(labels.begin(), {"probe", id});
    auto status = p.contains("status") && p["status"].is_string()
                      ? status_from_string(p["status"].get<std::string>())
                      : std::nullopt;
    for (auto o : kOutcomes) {
      Labels l = labels;
      l.emplace_back("status", to_string(o));
      w.add("jetgate_probe_status",
            "A probe's status: 1 for the one it has (PASS, WARN, FAIL, "
            "SKIP, NOT_RUN).",
            std::move(l), status && *status == o ? 1 : 0);
    }
    if (p.contains("duration_ms") && p["duration_ms"].is_number())
      w.add("jetgate_probe_duration_seconds", "How long a probe ran, seconds.", labels,
            p["duration_ms"].get<double>() / 1e3);
    if (p.contains("values") && p["values"].is_object())
      for (const auto& [metric, m] : p["values"].items()) {
        if (!m.is_object() || !m.contains("value") || !m["value"].is_number() ||
            !m.contains("unit") || !m["unit"].is_string())
          continue;
        const std::string unit = m["unit"].get<std::string>();
        for (const auto& u : kUnits)
          if (u.unit == unit) {
            Labels l = labels;
            l.insert(l.begin() + 1, {"metric", metric});
            w.add(u.family, u.help, std::move(l), m["value"].get<double>() * u.factor);
            break;
          }
      }
    // The sync path's wait, per scheduling mode: interrupt-driven, polling or unclear.
    if (p.contains("details") && p["details"].is_object() && p["details"].contains("modes") &&
        p["details"]["modes"].is_array())
      for (const auto& m : p["details"]["modes"]) {
        if (!m.is_object() || !m.contains("mode") || !m["mode"].is_string() ||
            !m.contains("wait") || !m["wait"].is_string())
          continue;
        const std::string wait = m["wait"].get<std::string>();
        for (auto state : kWaits) {
          Labels l = labels;
          l.emplace_back("sched_mode", m["mode"].get<std::string>());
          l.emplace_back("wait", std::string(state));
          w.add("jetgate_sync_wait",
                "How the host waited for the GPU in a scheduling mode: 1 "
                "for interrupt_driven, busy_polling or unclear.",
                std::move(l), wait == state ? 1 : 0);
        }
      }
  }
}

}  // namespace

std::string prometheus_label_value(std::string_view raw) {
  // Most values are plain ASCII with nothing to escape: kept as they are.
  if (std::all_of(raw.begin(), raw.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x80 && c != '\\' && c != '"' && c != '\n';
      }))
    return std::string(raw);
  // The format is UTF-8: bytes that are not become U+FFFD, as everywhere in jetgate.
  const std::string s = to_valid_utf8(raw);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::optional<double> previous_last_success(std::string_view previous, std::string_view gate,
                                            std::string_view node) {
  const std::string head = fmt::format("{}{{gate=\"{}\",node=\"{}\",", kLastSuccess,
                                       prometheus_label_value(gate), prometheus_label_value(node));
  std::size_t pos = 0;
  while (pos < previous.size()) {
    std::size_t end = previous.find('\n', pos);
    if (end == std::string_view::npos) end = previous.size();
    std::string_view line = previous.substr(pos, end - pos);
    pos = end + 1;
    if (line.substr(0, head.size()) != head) continue;
    std::size_t space = line.rfind(' ');
    if (space == std::string_view::npos || line[space - 1] != '}') return std::nullopt;
    std::string_view v = line.substr(space + 1);
    double d = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(d) || d < 0)
      return std::nullopt;
    return d;
  }
  return std::nullopt;
}

std::string render_prometheus_textfile(const PrometheusInput& in) {
  static const nlohmann::json empty = nlohmann::json::object();
  const nlohmann::json& doc = in.document ? *in.document : empty;
  evidence::Evidence as_evidence;
  as_evidence.extra = doc;
  auto key = claims::platform_key(as_evidence);
  const std::string node = string_or(doc, keys::kLaneNode, in.node);
  const std::string platform = key.identified ? key.platform : "not recorded";
  const Labels base{{"node", node}, {"platform", platform}};
  Writer w;

  Labels info = base;
  info.emplace_back("version", keys::string_at(doc, keys::kJetgateVersion));
  info.emplace_back("commit", keys::string_at(doc, keys::kJetgateCommitId));
  info.emplace_back("runtime", key.identified ? key.runtime : "");
  info.emplace_back("l4t", keys::string_at(doc, keys::kL4t));
  info.emplace_back("jetpack", keys::string_at(doc, keys::kJetpack));
  info.emplace_back("cuda_driver", keys::string_at(doc, keys::kDriverVersion));
  info.emplace_back("kernel", keys::string_at(doc, keys::kKernelRelease));
  info.emplace_back("facts_source", keys::string_at(doc, keys::kFactsSource));
  w.add("jetgate_info", "The jetgate that measured, and the platform's versions; always 1.",
        std::move(info), 1);
  const auto when = timestamp(doc);
  if (when)
    w.add("jetgate_evidence_timestamp_seconds",
          "When the facts and probes were measured (generated_at), Unix time; the evidence's "
          "age is time() minus this.",
          base, *when);

  const std::string gate = keys::string_at(doc, keys::kGate);
  if (!gate.empty()) {
    Labels labels = base;
    labels.insert(labels.begin(), {"gate", gate});
    const std::string status = keys::string_at(doc, keys::kStatus);
    // OBLITERATUS' spelling in the evidence; the state set speaks the one vocabulary.
    const Outcome current = status == "passed"   ? Outcome::pass
                            : status == "failed" ? Outcome::fail
                                                 : Outcome::not_run;
    for (auto o : {Outcome::pass, Outcome::fail, Outcome::not_run}) {
      Labels l = labels;
      l.emplace_back("status", to_string(o));
      w.add("jetgate_gate_status", "A gate's last run: 1 for its status (PASS, FAIL, NOT_RUN).",
            std::move(l), o == current ? 1 : 0);
    }
    if (when)
      w.add("jetgate_gate_last_run_timestamp_seconds", "When the gate last ran, Unix time.", labels,
            *when);
    std::optional<double> success =
        current == Outcome::pass ? when : previous_last_success(in.previous, gate, node);
    if (success)
      w.add(kLastSuccess, "When the gate last passed on this node, Unix time.", labels, *success);
    if (const auto* code = keys::find(doc, keys::kExitCode); code && code->is_number_integer())
      w.add("jetgate_gate_command_exit_code", "The exit code of the gate's command.", labels,
            code->get<double>());
  }
  add_probes(w, doc, base);
  return w.text();
}

}  // namespace jetgate::report
