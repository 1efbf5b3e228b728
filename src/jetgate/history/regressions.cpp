// SPDX-License-Identifier: Apache-2.0
#include "jetgate/history/regressions.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "jetgate/core/utf8.hpp"
#include "jetgate/probes/watched.hpp"

namespace jetgate::history {
namespace {

// 1.4826 x MAD estimates the standard deviation of normally distributed noise.
constexpr double kMadToSigma = 1.4826;

// What is watched, and which way is worse: the probe registry's speeds
// (probes/watched.hpp), the one list the Prometheus rules read too.
std::optional<RegressionKind> watched(const std::string& probe, const std::string& metric) {
  const auto w = probes::watched(probe, metric);
  if (!w) return std::nullopt;
  return *w == probes::Watch::drop ? RegressionKind::drop : RegressionKind::rise;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Baseline {
  double median = 0, mad = 0;
  std::size_t count = 0;
  std::string source;
};

Baseline baseline_of(const std::vector<double>& values, std::string source) {
  Baseline b;
  b.median = median_of(values);
  std::vector<double> dev;
  dev.reserve(values.size());
  for (double v : values) dev.push_back(std::fabs(v - b.median));
  b.mad = median_of(dev);
  b.count = values.size();
  b.source = std::move(source);
  return b;
}

// The value past which a value is worse: below it for a drop, above it for a rise.
double limit_of(RegressionKind k, const Baseline& b, const policy::RegressionThresholds& t) {
  const double spread = t.mad_factor * kMadToSigma * b.mad;
  if (k == RegressionKind::drop)
    return b.median - std::max(t.drop_fraction * std::fabs(b.median), spread);
  return b.median + std::max(t.cpu_rise, spread);
}

bool worse(RegressionKind k, double value, double limit) {
  return k == RegressionKind::drop ? value < limit : value > limit;
}

using RunGroup = std::vector<const Run*>;  // one node's runs of one gate, oldest first
using SeriesKey = std::tuple<std::string, std::string, std::string>;  // gate, probe, metric

// A node's own baseline as of its latest runs: the last green values, newest last.
std::vector<double> last_green(const RunGroup& g, const std::string& probe,
                               const std::string& metric, std::size_t n) {
  std::vector<double> out;
  for (auto it = g.rbegin(); it != g.rend() && out.size() < n; ++it) {
    if ((*it)->status != "passed") continue;
    auto v = (*it)->values.find({probe, metric});
    if (v != (*it)->values.end()) out.push_back(v->second.first);
  }
  return out;
}

void set_first(Regression& r, const Run& first, const Run& last, std::size_t n) {
  r.first_timestamp = first.timestamp;
  r.first_file = first.file;
  r.first_unix_time = first.unix_time;
  r.last_timestamp = last.timestamp;
  r.last_file = last.file;
  r.worse_runs = n;
}

}  // namespace

const char* to_string(RegressionKind k) {
  switch (k) {
    case RegressionKind::drop:
      return "drop";
    case RegressionKind::rise:
      return "rise";
    case RegressionKind::wait_mode:
      return "wait_mode";
    case RegressionKind::gate_failed:
      return "gate_failed";
    case RegressionKind::silent:
      return "silent";
    case RegressionKind::below_peers:
      return "below_peers";
  }
  return "drop";
}

namespace {

// The walk both find_regressions and find_trends make: every node's runs per gate, the
// fleet's medians per platform and series, and each watched numeric series judged value
// by value against the baseline of its time.
class Walker {
 public:
  Walker(const std::vector<Run>& runs, const policy::RegressionThresholds& t)
      : t_(t),
        n_(static_cast<std::size_t>(std::max<std::int64_t>(1, t.baseline_runs))),
        least_(static_cast<std::size_t>(std::max<std::int64_t>(1, t.min_baseline_runs))) {
    // (node, gate) -> runs, oldest first (load_runs orders them so).
    for (const auto& r : runs) {
      groups_[{r.node, r.gate}].push_back(&r);
      nodes_.insert(r.node);
    }
    // The fleet: per platform and series, each node's own median (its last green runs).
    for (const auto& [key, g] : groups_)
      for (const auto& [probe, metric] : watched_metrics(g)) {
        auto values = last_green(g, probe, metric, n_);
        if (values.size() >= least_)
          fleet_[{g.back()->platform, {key.second, probe, metric}}].push_back(
              {key.first, median_of(values)});
      }
  }

  const std::map<std::pair<std::string, std::string>, RunGroup>& groups() const { return groups_; }
  const policy::RegressionThresholds& thresholds() const { return t_; }
  std::size_t nodes() const { return nodes_.size(); }
  std::size_t least() const { return least_; }
  std::size_t window() const { return n_; }

  static std::set<std::pair<std::string, std::string>> watched_metrics(const RunGroup& g) {
    std::set<std::pair<std::string, std::string>> metrics;
    for (const Run* r : g)
      for (const auto& pm : r->values)
        if (watched(pm.first.first, pm.first.second)) metrics.insert(pm.first);
    return metrics;
  }

  // One series, value by value: the baseline each value was judged against and whether
  // it was worse. A worse value does not join the node's own baseline.
  Trend walk(const std::string& node, const std::string& gate, const RunGroup& g,
             const std::string& probe, const std::string& metric) const {
    Trend trend;
    trend.node = node;
    trend.gate = gate;
    trend.platform = g.back()->platform;
    trend.probe = probe;
    trend.metric = metric;
    std::deque<double> window;
    for (const Run* r : g) {
      auto v = r->values.find({probe, metric});
      if (v == r->values.end()) continue;
      trend.unit = v->second.second;
      trend.kind = *watched(probe, metric);
      std::optional<Baseline> base;
      if (window.size() >= least_)
        base = baseline_of(std::vector<double>(window.begin(), window.end()), "own");
      else
        base = fleet_baseline(trend.platform, {gate, probe, metric}, node);
      TrendPoint p;
      p.run = r;
      p.value = v->second.first;
      if (base) {
        p.has_baseline = true;
        p.baseline_median = base->median;
        p.baseline_mad = base->mad;
        p.baseline_source = base->source;
        p.baseline_runs = base->count;
        p.limit = limit_of(trend.kind, *base, t_);
        p.spread = t_.mad_factor * kMadToSigma * base->mad;
        p.worse = worse(trend.kind, p.value, p.limit);
      }
      trend.points.push_back(p);
      if (p.worse) {
        // Judged by the fleet only until the node has a baseline of its own: its green
        // runs make that baseline even when they are below its peers (a node that has
        // always been slower has not got worse).
        if (base->source == "fleet" && r->status == "passed") window.push_back(p.value);
        continue;
      }
      if (r->status == "passed") {
        window.push_back(p.value);
        if (window.size() > n_) window.pop_front();
      }
    }
    return trend;
  }

  // The node's peers of its platform: the baseline of their own medians, without it.
  std::optional<Baseline> fleet_baseline(const std::string& platform, const SeriesKey& s,
                                         const std::string& node) const {
    auto it = fleet_.find({platform, s});
    if (it == fleet_.end()) return std::nullopt;
    std::vector<double> peers;
    for (const auto& [peer, m] : it->second)
      if (peer != node) peers.push_back(m);
    if (peers.size() < static_cast<std::size_t>(std::max<std::int64_t>(1, t_.min_peers)))
      return std::nullopt;
    return baseline_of(peers, "fleet");
  }

 private:
  const policy::RegressionThresholds& t_;
  std::size_t n_, least_;
  std::map<std::pair<std::string, std::string>, RunGroup> groups_;
  std::set<std::string> nodes_;
  std::map<std::pair<std::string, SeriesKey>, std::vector<std::pair<std::string, double>>> fleet_;
};

}  // namespace

std::vector<Trend> find_trends(const std::vector<Run>& runs,
                               const policy::RegressionThresholds& t) {
  const Walker w(runs, t);
  std::vector<Trend> out;
  for (const auto& [key, g] : w.groups())
    for (const auto& [probe, metric] : Walker::watched_metrics(g))
      out.push_back(w.walk(key.first, key.second, g, probe, metric));
  return out;
}

std::vector<Run> runs_until(const std::vector<Run>& runs, std::int64_t now) {
  std::vector<Run> out;
  for (const auto& r : runs)
    if (r.unix_time <= now) out.push_back(r);
  return out;
}

std::size_t RegressionReport::silent() const {
  return static_cast<std::size_t>(std::count_if(last_seen.begin(), last_seen.end(),
                                                [](const LastSeen& l) { return l.silent; }));
}

namespace {

// Below its peers: the node's own median (its last green runs) against the medians of
// its platform's other nodes, by the thresholds of a drop; the trailing runs below that
// limit say since when (a node slow from its first night: since its first night). A
// probe that dropped against the node's own past already says why and is not repeated.
void add_below_peers(const Walker& w, const std::string& node, const std::string& gate,
                     const RunGroup& g, const std::vector<Regression>& own,
                     std::vector<Regression>& out) {
  const auto& t = w.thresholds();
  const std::size_t confirm = static_cast<std::size_t>(std::max<std::int64_t>(1, t.confirm_runs));
  const std::string& platform = g.back()->platform;
  std::vector<Regression> found;
  for (const auto& [probe, metric] : Walker::watched_metrics(g)) {
    if (watched(probe, metric) != RegressionKind::drop) continue;
    bool dropped = false;
    for (const auto& r : own)
      if (r.node == node && r.gate == gate && r.probe == probe && r.kind == RegressionKind::drop)
        dropped = true;
    if (dropped) continue;
    const auto values = last_green(g, probe, metric, w.window());
    if (values.size() < w.least()) continue;
    const auto base = w.fleet_baseline(platform, {gate, probe, metric}, node);
    if (!base) continue;
    const double mine = median_of(values);
    const double limit = limit_of(RegressionKind::drop, *base, t);
    if (!(mine < limit)) continue;
    std::size_t streak = 0;
    const Run* first = nullptr;
    const Run* last = nullptr;
    std::string unit;
    for (auto it = g.rbegin(); it != g.rend(); ++it) {
      auto v = (*it)->values.find({probe, metric});
      if (v == (*it)->values.end()) continue;
      if (!(v->second.first < limit)) break;
      if (!last) last = *it;
      first = *it;
      unit = v->second.second;
      ++streak;
    }
    if (streak < confirm || !first) continue;
    Regression reg;
    reg.kind = RegressionKind::below_peers;
    reg.node = node;
    reg.platform = platform;
    reg.gate = gate;
    reg.probe = probe;
    reg.metric = metric;
    reg.unit = unit;
    reg.numeric = true;
    reg.baseline_median = base->median;
    reg.baseline_mad = base->mad;
    reg.baseline_source = "fleet";
    reg.baseline_runs = base->count;
    reg.value = mine;
    set_first(reg, *first, *last, streak);
    found.push_back(std::move(reg));
  }
  // One finding per probe: the largest gap speaks, the others are named with it.
  std::stable_sort(found.begin(), found.end(), [](const Regression& a, const Regression& b) {
    auto gap = [](const Regression& r) {
      return r.baseline_median == 0 ? 0.0 : (r.baseline_median - r.value) / r.baseline_median;
    };
    return a.probe < b.probe || (a.probe == b.probe && gap(a) > gap(b));
  });
  for (auto& r : found) {
    if (!out.empty() && out.back().kind == RegressionKind::below_peers && out.back().node == node &&
        out.back().gate == gate && out.back().probe == r.probe) {
      out.back().also.push_back(r.metric);
      continue;
    }
    out.push_back(std::move(r));
  }
}

}  // namespace

RegressionReport find_regressions(const std::vector<Run>& all,
                                  const policy::RegressionThresholds& t, const FindOptions& o) {
  std::vector<Run> kept;
  if (o.now) kept = runs_until(all, *o.now);
  const std::vector<Run>& runs = o.now ? kept : all;
  RegressionReport report;
  report.runs = runs.size();
  report.silent_after_seconds = o.silent_after_seconds;
  if (o.now)
    report.now = *o.now;
  else
    for (const auto& r : runs) report.now = std::max(report.now, r.unix_time);
  const Walker walker(runs, t);
  const std::size_t n = walker.window();
  const std::size_t least = walker.least();
  const std::size_t confirm = static_cast<std::size_t>(std::max<std::int64_t>(1, t.confirm_runs));
  report.nodes = walker.nodes();

  for (const auto& [key, g] : walker.groups()) {
    const auto& [node, gate] = key;
    const std::string& platform = g.back()->platform;

    // Numbers: a trailing streak of worse values, judged against the baseline of the
    // streak's first value.
    std::vector<Regression> numeric;
    for (const auto& [probe, metric] : Walker::watched_metrics(g)) {
      ++report.series;
      const Trend trend = walker.walk(node, gate, g, probe, metric);
      std::size_t streak = 0;
      while (streak < trend.points.size() && trend.points[trend.points.size() - 1 - streak].worse)
        ++streak;
      if (streak < confirm || streak == 0) continue;
      const TrendPoint& first = trend.points[trend.points.size() - streak];
      const TrendPoint& last = trend.points.back();
      Regression reg;
      reg.kind = trend.kind;
      reg.node = node;
      reg.platform = platform;
      reg.gate = gate;
      reg.probe = probe;
      reg.metric = metric;
      reg.unit = trend.unit;
      reg.numeric = true;
      reg.baseline_median = first.baseline_median;
      reg.baseline_mad = first.baseline_mad;
      reg.baseline_source = first.baseline_source;
      reg.baseline_runs = first.baseline_runs;
      reg.value = last.value;
      set_first(reg, *first.run, *last.run, streak);
      numeric.push_back(std::move(reg));
    }

    // Waits: a mode whose green runs waited interrupt-driven now polls.
    std::set<std::pair<std::string, std::string>> modes;
    for (const Run* r : g)
      for (const auto& [pm, w] : r->sync_waits) modes.insert(pm);
    std::vector<Regression> waits;
    for (const auto& [probe, mode] : modes) {
      ++report.series;
      std::deque<std::string> window;
      std::size_t streak = 0;
      const Run* first = nullptr;
      const Run* last = nullptr;
      for (const Run* r : g) {
        auto w = r->sync_waits.find({probe, mode});
        if (w == r->sync_waits.end()) continue;
        const bool was_interrupt =
            window.size() >= least &&
            std::count(window.begin(), window.end(), "interrupt_driven") * 2 >
                static_cast<std::ptrdiff_t>(window.size());
        if (was_interrupt && w->second == "busy_polling") {
          if (streak++ == 0) first = r;
          last = r;
          continue;
        }
        streak = 0;
        if (r->status == "passed") {
          window.push_back(w->second);
          if (window.size() > n) window.pop_front();
        }
      }
      if (streak >= confirm && first) {
        Regression reg;
        reg.kind = RegressionKind::wait_mode;
        reg.node = node;
        reg.platform = platform;
        reg.gate = gate;
        reg.probe = probe;
        reg.metric = mode;
        reg.baseline_text = "interrupt_driven";
        reg.value_text = "busy_polling";
        reg.baseline_source = "own";
        reg.baseline_runs = window.size();
        set_first(reg, *first, *last, streak);
        // The mode's CPU per wait rose with it: one cause, one finding.
        const std::string cpu = "sync_" + mode + "_cpu_fraction";
        for (auto it = numeric.begin(); it != numeric.end(); ++it)
          if (it->probe == probe && it->metric == cpu && it->kind == RegressionKind::rise) {
            reg.numeric = true;
            reg.unit = it->unit;
            reg.baseline_median = it->baseline_median;
            reg.baseline_mad = it->baseline_mad;
            reg.value = it->value;
            numeric.erase(it);
            break;
          }
        waits.push_back(std::move(reg));
      }
    }

    // The gate: it passed, and every run since has failed (runs that did not run are
    // neither).
    ++report.series;
    std::size_t streak = 0, passed_before = 0;
    const Run* first = nullptr;
    const Run* last = nullptr;
    for (const Run* r : g) {
      if (r->status == "not_run") continue;
      if (r->status == "failed" && passed_before > 0) {
        if (streak++ == 0) first = r;
        last = r;
        continue;
      }
      streak = 0;
      if (r->status == "passed") ++passed_before;
    }
    if (streak >= confirm && first) {
      Regression reg;
      reg.kind = RegressionKind::gate_failed;
      reg.node = node;
      reg.platform = platform;
      reg.gate = gate;
      reg.metric = "status";
      reg.baseline_text = "passed";
      reg.value_text = "failed";
      reg.baseline_source = "own";
      reg.baseline_runs = passed_before;
      set_first(reg, *first, *last, streak);
      report.found.push_back(std::move(reg));
    }
    // Values of one probe that got worse the same way are one finding: a slower memory
    // path lowers d2d_gbps and d2d_fraction_of_peak together. The one that turned first
    // (then the largest relative change) speaks for it; the others are named with it.
    std::stable_sort(numeric.begin(), numeric.end(), [](const Regression& a, const Regression& b) {
      auto change = [](const Regression& r) {
        return r.baseline_median == 0
                   ? 0.0
                   : std::fabs(r.value - r.baseline_median) / std::fabs(r.baseline_median);
      };
      return std::tie(a.probe, a.kind, a.first_unix_time) <
                 std::tie(b.probe, b.kind, b.first_unix_time) ||
             (std::tie(a.probe, a.kind, a.first_unix_time) ==
                  std::tie(b.probe, b.kind, b.first_unix_time) &&
              change(a) > change(b));
    });
    for (auto& r : numeric) {
      auto& found = report.found;
      if (!found.empty() && found.back().node == r.node && found.back().gate == r.gate &&
          found.back().probe == r.probe && found.back().kind == r.kind) {
        found.back().also.push_back(r.metric);
        continue;
      }
      found.push_back(std::move(r));
    }
    for (auto& r : waits) report.found.push_back(std::move(r));
    add_below_peers(walker, node, gate, g, report.found, report.found);
  }
  // Silence: every node's latest run of any gate, and its age as of "now".
  std::map<std::string, const Run*> latest;
  for (const auto& r : runs) {
    auto& l = latest[r.node];
    if (!l || r.unix_time > l->unix_time) l = &r;
  }
  for (const auto& [node, r] : latest) {
    LastSeen s;
    s.node = node;
    s.platform = r->platform;
    s.timestamp = r->timestamp;
    s.file = r->file;
    s.unix_time = r->unix_time;
    s.age_seconds = report.now - r->unix_time;
    s.silent = s.age_seconds > o.silent_after_seconds;
    report.last_seen.push_back(s);
    if (!s.silent) continue;
    Regression reg;
    reg.kind = RegressionKind::silent;
    reg.node = node;
    reg.platform = r->platform;
    reg.metric = "evidence";
    reg.baseline_source = "own";
    reg.age_seconds = s.age_seconds;
    set_first(reg, *r, *r, 0);
    report.found.push_back(std::move(reg));
  }
  std::sort(report.found.begin(), report.found.end(), [](const Regression& a, const Regression& b) {
    return std::tie(a.node, a.gate, a.probe, a.metric) <
           std::tie(b.node, b.gate, b.probe, b.metric);
  });
  return report;
}

nlohmann::json to_json(const RegressionReport& r, const policy::RegressionThresholds& t) {
  nlohmann::json found = nlohmann::json::array();
  for (const auto& g : r.found) {
    nlohmann::json baseline = {{"source", g.baseline_source}, {"runs", g.baseline_runs}};
    nlohmann::json value = nlohmann::json::object();
    if (g.numeric) {
      baseline["median"] = g.baseline_median;
      baseline["mad"] = g.baseline_mad;
      value["value"] = g.value;
      baseline["unit"] = g.unit;
      value["unit"] = g.unit;
    }
    if (!g.baseline_text.empty()) {
      baseline["state"] = g.baseline_text;
      value["state"] = g.value_text;
    }
    found.push_back(
        {{"kind", to_string(g.kind)},
         {"node", g.node},
         {"platform", g.platform},
         {"gate", g.gate},
         {"probe", g.probe.empty() ? nlohmann::json() : nlohmann::json(g.probe)},
         {"metric", g.metric},
         {"also", g.also},
         {"baseline", std::move(baseline)},
         {"latest", std::move(value)},
         {"first",
          {{"timestamp", g.first_timestamp},
           {"unix_time", g.first_unix_time},
           {"file", to_valid_utf8(g.first_file)}}},
         {"last", {{"timestamp", g.last_timestamp}, {"file", to_valid_utf8(g.last_file)}}},
         {"worse_runs", g.worse_runs}});
    if (g.kind == RegressionKind::silent) found.back()["age_seconds"] = g.age_seconds;
  }
  nlohmann::json seen = nlohmann::json::array();
  for (const auto& l : r.last_seen)
    seen.push_back({{"node", l.node},
                    {"platform", l.platform},
                    {"timestamp", l.timestamp},
                    {"unix_time", l.unix_time},
                    {"file", to_valid_utf8(l.file)},
                    {"age_seconds", l.age_seconds},
                    {"silent", l.silent}});
  return {{"schema_version", 1},
          {"runs", r.runs},
          {"nodes", r.nodes},
          {"series", r.series},
          {"now", r.now},
          {"silent_after_seconds", r.silent_after_seconds},
          {"silent", r.silent()},
          {"last_seen", std::move(seen)},
          {"thresholds",
           {{"baseline_runs", t.baseline_runs},
            {"min_baseline_runs", t.min_baseline_runs},
            {"min_peers", t.min_peers},
            {"drop_fraction", t.drop_fraction},
            {"mad_factor", t.mad_factor},
            {"cpu_rise", t.cpu_rise},
            {"confirm_runs", t.confirm_runs}}},
          {"regressions", std::move(found)}};
}

}  // namespace jetgate::history
