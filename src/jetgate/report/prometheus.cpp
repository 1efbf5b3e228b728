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
#include "jetgate/core/outcome.hpp"
#include "jetgate/core/units.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::report {
namespace {

constexpr std::string_view kLastSuccess = "jetgate_gate_last_success_timestamp_seconds";

// A base unit's family help (core/units.hpp); the family is jetgate_probe_<base>.
std::string_view unit_help(std::string_view base) {
  const auto* b = units::base_named(base);
  return b ? b->help : "A probe's measured value.";
}

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

std::optional<double> timestamp(const record::Record& r) {
  auto t = evidence::utc_seconds_of_timestamp(r.head.generated_at.value_or(""));
  if (!t) return std::nullopt;
  return static_cast<double>(*t);
}

void add_probes(Writer& w, const record::Record& r, const Labels& base) {
  for (const auto& p : evidence::probe_readings(r)) {
    Labels labels = base;
    labels.insert(labels.begin(), {"probe", p.id});
    auto status = status_from_string(p.status);
    for (auto o : kOutcomes) {
      Labels l = labels;
      l.emplace_back("status", to_string(o));
      w.add("jetgate_probe_status",
            "A probe's status: 1 for the one it has (PASS, WARN, FAIL, "
            "SKIP, NOT_RUN).",
            std::move(l), status && *status == o ? 1 : 0);
    }
    if (p.duration_seconds)
      w.add("jetgate_probe_duration_seconds", "How long a probe ran, seconds.", labels,
            *p.duration_seconds);
    for (const auto& v : p.values) {
      Labels l = labels;
      l.insert(l.begin() + 1, {"metric", v.metric});
      w.add("jetgate_probe_" + v.base, unit_help(v.base), std::move(l), v.value);
    }
    // The sync path's wait, per scheduling mode: interrupt-driven, polling or unclear.
    for (const auto& m : p.waits)
      for (auto state : kWaits) {
        Labels l = labels;
        l.emplace_back("sched_mode", m.mode);
        l.emplace_back("wait", std::string(state));
        w.add("jetgate_sync_wait",
              "How the host waited for the GPU in a scheduling mode: 1 "
              "for interrupt_driven, busy_polling or unclear.",
              std::move(l), m.wait == state ? 1 : 0);
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
  const record::Record r =
      in.document ? record::read(*in.document, record::Keep::known) : record::Record{};
  auto key = claims::platform_key(r);
  const std::string node =
      r.head.lane_node && !r.head.lane_node->empty() ? *r.head.lane_node : in.node;
  const std::string platform = key.identified ? key.platform : "not recorded";
  const std::string gate = r.head.gate.value_or("");
  // Every series names its producer: `probe` and each gate's `run` may write textfiles
  // on one node, and node_exporter drops a series that two files both hold.
  Labels base{{"node", node}, {"platform", platform}, {"producer", gate.empty() ? "probe" : "run"}};
  if (!gate.empty()) base.insert(base.begin(), {"gate", gate});
  Writer w;

  Labels info = base;
  info.emplace_back("version", r.head.jetgate_version.value_or(""));
  info.emplace_back("commit", r.head.jetgate_commit_id.value_or(""));
  info.emplace_back("runtime", key.identified ? key.runtime : "");
  info.emplace_back("l4t", r.platform.tegra.l4t.version.value_or(""));
  info.emplace_back("jetpack", r.platform.tegra.jetpack.value_or(""));
  info.emplace_back("cuda_driver", r.gpu.driver_version.value_or(""));
  info.emplace_back("kernel", r.platform.kernel_release.value_or(""));
  info.emplace_back("facts_source", r.head.facts_source.value_or(""));
  w.add("jetgate_info", "The jetgate that measured, and the platform's versions; always 1.",
        std::move(info), 1);
  const auto when = timestamp(r);
  if (when)
    w.add("jetgate_evidence_timestamp_seconds",
          "When the facts and probes were measured (generated_at), Unix time; the evidence's "
          "age is time() minus this.",
          base, *when);

  if (!gate.empty()) {
    const Labels& labels = base;
    const std::string status = r.head.status.value_or("");
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
    if (r.head.exit_code)
      w.add("jetgate_gate_command_exit_code", "The exit code of the gate's command.", labels,
            static_cast<double>(*r.head.exit_code));
  }
  add_probes(w, r, base);
  return w.text();
}

std::string render_regressions_prometheus(const history::RegressionReport& r) {
  Writer w;
  w.add("jetgate_history_regressions", "Regressions `jetgate history regressions` found.", {},
        static_cast<double>(r.found.size()));
  w.add("jetgate_history_runs", "Evidence files in the history database.", {},
        static_cast<double>(r.runs));
  w.add("jetgate_history_silent_nodes",
        "Nodes whose latest evidence is older than the silence limit.", {},
        static_cast<double>(r.silent()));
  w.add("jetgate_history_now_timestamp_seconds",
        "The time the history's ages are counted to (its newest run, or --now), Unix time.", {},
        static_cast<double>(r.now));
  w.add("jetgate_history_silent_after_seconds",
        "A node is silent when its latest evidence is older than this, seconds.", {},
        static_cast<double>(r.silent_after_seconds));
  for (const auto& l : r.last_seen) {
    const Labels labels{{"node", l.node}, {"platform", l.platform}};
    w.add("jetgate_history_node_last_seen_timestamp_seconds",
          "A node's latest run of any gate in the history, Unix time.", labels,
          static_cast<double>(l.unix_time));
    w.add("jetgate_history_node_silent", "1 when the node is silent, else 0.", labels,
          l.silent ? 1 : 0);
  }
  for (const auto& g : r.found) {
    const Labels labels{{"node", g.node},     {"platform", g.platform},
                        {"gate", g.gate},     {"probe", g.probe},
                        {"metric", g.metric}, {"kind", history::to_string(g.kind)}};
    w.add("jetgate_history_regression",
          "A node got worse: 1 per finding (kind drop, rise, wait_mode, gate_failed, silent, "
          "below_peers).",
          labels, 1);
    w.add("jetgate_history_regression_since_timestamp_seconds",
          "The first run of the regression, Unix time.", labels,
          static_cast<double>(g.first_unix_time));
    if (g.numeric) {
      Labels l = labels;
      l.emplace_back("unit", g.unit);
      w.add("jetgate_history_regression_baseline",
            "The baseline median, in the base unit the unit label names.", l, g.baseline_median);
      w.add("jetgate_history_regression_value",
            "The latest value, in the base unit the unit label names.", std::move(l), g.value);
    }
  }
  return w.text();
}

}  // namespace jetgate::report
