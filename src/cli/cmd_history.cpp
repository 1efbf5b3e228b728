// SPDX-License-Identifier: Apache-2.0
// `jetgate history`: a fleet's evidence over time in an embedded SQLite database
// (docs/history.md). `ingest` stores evidence files (each once, by the digest of its
// bytes), `show` prints a node's values over time, `regressions` says which node got
// worse and since when, `report` writes it all as one HTML file.
#include <fmt/format.h>

#include <cstddef>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/ci_outputs.hpp"
#include "cli/commands.hpp"
#include "cli/input_paths.hpp"
#include "cli/number_options.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/history/store.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/report/history_html.hpp"
#include "jetgate/report/history_text.hpp"
#include "jetgate/report/prometheus.hpp"

namespace jetgate::cli {
namespace {

struct HistoryArgs {
  std::string db;
  // ingest
  std::vector<std::string> dirs;
  bool quiet = false;
  // show
  std::string node, gate, probe, metric;
  bool json = false, markdown = false;
  // regressions, report
  std::string policy, prometheus;
  std::string now;  // --now: an RFC 3339 UTC time; default the newest run's
  // report
  std::string html;
  std::size_t full_nodes = 24, points = 60;
};

// --policy P: the thresholds of its "regressions" section (the defaults without one).
// An unusable policy or section is said on stderr, and the exit status returned.
std::optional<int> load_thresholds(const char* command, const std::string& path,
                                   policy::RegressionThresholds& thresholds,
                                   history::FindOptions& find) {
  if (path.empty()) return std::nullopt;
  if (auto st = check_policy_path(path); !st)
    return usage_error(command, "--policy: " + st.error().message());
  auto p = policy::load_policy_file(path);
  if (!p) return usage_error(command, p.error().message());
  for (const auto& w : p->warnings)
    std::cerr << terminal_safe(std::string("jetgate ") + command + ": warning: " + w) << "\n";
  bool bad = false;
  for (const auto& i : p->issues)
    if (i.what.rfind("regressions", 0) == 0 ||
        i.what.find("\"regressions\"") != std::string::npos) {
      std::cerr << terminal_safe(std::string("jetgate ") + command + ": policy: " + i.line())
                << "\n";
      bad = true;
    }
  if (bad) return kExitUsage;
  thresholds = p->policy.regressions;
  // The policy's freshness rule is the silence limit.
  if (const auto& days = p->policy.maximum_evidence_age_days; days && *days > 0)
    find.silent_after_seconds = *days * 86400;
  return std::nullopt;
}

// --now TIME: "now" for silence, and the runs after it left out.
std::optional<int> load_now(const char* command, const std::string& text,
                            history::FindOptions& find) {
  if (text.empty()) return std::nullopt;
  auto t = evidence::utc_seconds_of_timestamp(text);
  if (!t)
    return usage_error(
        command, "--now: \"" + text + "\" is not a UTC time; write it as 2026-11-30T03:00:00Z");
  find.now = *t;
  return std::nullopt;
}

int run_ingest(const HistoryArgs& a) {
  // The database is this command's output: never one of the evidence files it reads.
  fs::CommandFiles files;
  for (const auto& dir : a.dirs)
    files.add_input_dir(dir, "an evidence directory this command ingests", {".json"},
                        /*recursive=*/true);
  if (!check_outputs("history ingest", files, {{"--db", a.db}})) return kExitUsage;
  // Listed before the database is opened: an unusable directory leaves no database.
  auto found = history::find_evidence_files(a.dirs);
  if (!found) return usage_error("history ingest", found.error().message());
  auto store = history::Store::open(a.db, /*create=*/true);
  if (!store) return usage_error("history ingest", store.error().message());
  auto report = history::ingest(*store, *found);
  if (!report) return usage_error("history ingest", report.error().message());
  for (const auto& b : report->bad)
    std::cerr << terminal_safe("jetgate history ingest: skipped " + b.file + ": " + b.why) << "\n";
  auto c = history::counts(*store);
  if (a.json) {
    nlohmann::json bad = nlohmann::json::array();
    for (const auto& b : report->bad)
      bad.push_back({{"file", to_valid_utf8(b.file)}, {"why", to_valid_utf8(b.why)}});
    nlohmann::json doc = {{"files", report->files},
                          {"added", report->added},
                          {"already", report->already},
                          {"bad", std::move(bad)}};
    if (c) doc["database"] = {{"runs", c->files}, {"values", c->values}};
    std::cout << dump_json(doc, 2) << "\n";
  } else if (!a.quiet) {
    std::cout << terminal_safe(fmt::format(
                     "{} evidence file(s): {} added, {} already stored, {} bad{}", report->files,
                     report->added, report->already, report->bad.size(),
                     c ? fmt::format("; {} has {} run(s), {} value(s)", a.db, c->files, c->values)
                       : std::string()))
              << "\n";
  }
  return kExitOk;
}

int run_show(const HistoryArgs& a) {
  auto store = history::Store::open_read_only(a.db);
  if (!store) return usage_error("history show", store.error().message());
  history::Query q;
  auto opt = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional(s); };
  q.node = opt(a.node);
  q.gate = opt(a.gate);
  q.probe = opt(a.probe);
  q.metric = opt(a.metric);
  auto points = history::query(*store, q);
  if (!points) return usage_error("history show", points.error().message());
  if (a.json)
    std::cout << dump_json(history::to_json(*points), 2) << "\n";
  else if (a.markdown)
    std::cout << report::render_points_markdown(*points);
  else
    std::cout << report::render_points_text(*points);
  return kExitOk;
}

// What `regressions` and `report` share before they judge: the thresholds and "now"
// (--policy, --now), their one output checked against the database and the policy, and
// the runs read from the database, opened read-only. The exit status when one of them
// is unusable.
struct Judging {
  policy::RegressionThresholds thresholds;
  history::FindOptions find;
  std::vector<history::Run> runs;
};
std::optional<int> prepare_judging(const char* command, const HistoryArgs& a, const char* option,
                                   const std::string& output, Judging& j) {
  if (auto rc = load_thresholds(command, a.policy, j.thresholds, j.find)) return rc;
  if (auto rc = load_now(command, a.now, j.find)) return rc;
  fs::CommandFiles files;
  files.add_input(a.db, "the database");
  files.add_input(a.policy, "the policy");
  if (!check_outputs(command, files, {{option, output}})) return kExitUsage;
  if (!output.empty())
    if (auto st = fs::check_output_path(output); !st)
      return usage_error(command, std::string(option) + ": " + st.error().message());
  auto store = history::Store::open_read_only(a.db);
  if (!store) return usage_error(command, store.error().message());
  auto runs = history::load_runs(*store);
  if (!runs) return usage_error(command, runs.error().message());
  j.runs = std::move(*runs);
  return std::nullopt;
}

int run_regressions(const HistoryArgs& a) {
  Judging j;
  if (auto rc = prepare_judging("history regressions", a, "--prometheus", a.prometheus, j))
    return *rc;
  const auto& thresholds = j.thresholds;
  auto found = history::find_regressions(j.runs, thresholds, j.find);
  if (!a.prometheus.empty() && !write_output_file("history regressions", a.prometheus,
                                                  report::render_regressions_prometheus(found)))
    return kExitUsage;
  if (a.json)
    std::cout << dump_json(history::to_json(found, thresholds), 2) << "\n";
  else if (a.markdown)
    std::cout << report::render_regressions_markdown(found);
  else
    std::cout << report::render_regressions_text(found);
  return found.found.empty() ? kExitOk : kExitDoesNotHold;
}

int run_report(const HistoryArgs& a) {
  Judging j;
  if (auto rc = prepare_judging("history report", a, "--html", a.html, j)) return *rc;
  const auto& thresholds = j.thresholds;
  const auto& find = j.find;
  auto runs = std::move(j.runs);
  if (find.now) runs = history::runs_until(runs, *find.now);
  const auto found = history::find_regressions(runs, thresholds, find);
  const auto trends = history::find_trends(runs, thresholds);
  report::HtmlReportOptions o;
  o.source = a.db;
  o.max_full_nodes = a.full_nodes;
  o.max_points = a.points;
  if (!write_output_file("history report", a.html,
                         report::render_history_html(runs, found, trends, thresholds, o)))
    return kExitUsage;
  std::cout << terminal_safe(fmt::format("wrote {}: {} node(s), {} run(s), {} regression(s)",
                                         a.html, found.nodes, found.runs, found.found.size()))
            << "\n";
  return kExitOk;
}

}  // namespace

Command add_history_command(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  auto* sub = app.add_subcommand(
      "history",
      "A fleet's evidence over time in an embedded SQLite database: ingest evidence files, show "
      "a node's values, find which node got worse and since when");
  sub->require_subcommand(1);
  sub->footer(
      "The database holds one row per evidence file (keyed by the SHA-256 of its bytes) with "
      "its node, gate, platform, time, status and verdict, and every probe value in its base "
      "unit. Several `history ingest` may run at once on one database; a killed one loses "
      "nothing committed. Docs: docs/history.md.");

  auto* ingest = sub->add_subcommand(
      "ingest", "Store every evidence file under the directories (recursively) in the database");
  ingest->add_option("DIR", args->dirs, "Directories holding evidence files (GATE.json)")
      ->required()
      ->type_name("DIR...");
  ingest->add_option("--db", args->db, "The history database (created when absent)")
      ->required()
      ->type_name("FILE");
  ingest->add_flag("--json", args->json, "Print the counts and the bad files as JSON");
  ingest->add_flag("--quiet", args->quiet, "Print nothing but the bad files");
  ingest->footer(
      "A file already stored (the same bytes) adds nothing; a file that is not usable evidence "
      "(unreadable, not JSON, no /lane/node, no timestamp) is reported on stderr and skipped. "
      "Exit status: 0 ingested, 2 a directory or the database is unusable.");

  auto* show = sub->add_subcommand("show", "Print stored probe values over time");
  show->add_option("--db", args->db, "The history database")->required()->type_name("FILE");
  show->add_option("--node", args->node, "Only this node (/lane/node)")->type_name("N");
  show->add_option("--gate", args->gate, "Only this gate")->type_name("G");
  show->add_option("--probe", args->probe, "Only this probe (bandwidth, sync_path, ...)")
      ->type_name("P");
  show->add_option("--metric", args->metric, "Only this value (d2d_gbps, ...)")->type_name("M");
  auto* json = show->add_flag("--json", args->json, "Print one JSON document");
  show->add_flag("--markdown", args->markdown, "Print a Markdown table")->excludes(json);
  show->footer(
      "Values are in their base unit (bytes_per_second, seconds, bytes, ratio, "
      "tokens_per_second, items). Exit status: 0 printed, 2 no such database.");

  auto* reg = sub->add_subcommand(
      "regressions",
      "Which node got worse, and since when: each node's bandwidth, decode rate, fraction of "
      "the bound, sync-path CPU per wait, wait mode and gate status against its own baseline "
      "(and its platform's fleet)");
  reg->add_option("--db", args->db, "The history database")->required()->type_name("FILE");
  reg->add_option("--policy", args->policy,
                  "Read thresholds from this policy's \"regressions\" section")
      ->type_name("FILE");
  reg->add_option("--prometheus", args->prometheus,
                  "Also write the regressions as a node_exporter textfile (written atomically)")
      ->type_name("FILE");
  reg->add_option("--now", args->now,
                  "Count ages to this UTC time (2026-11-30T03:00:00Z) and leave later runs out; "
                  "default: the newest run's time, so the same database answers the same")
      ->type_name("TIME");
  auto* rjson = reg->add_flag("--json", args->json, "Print one JSON document");
  reg->add_flag("--markdown", args->markdown, "Print a Markdown table")->excludes(rjson);
  reg->footer(
      "Each regression names the node, the value, its baseline, the latest value and the first "
      "run (timestamp, file) since which it is worse. A node is silent when its latest evidence "
      "is older than the policy's maximum_evidence_age_days (default 2 days) before now; a node "
      "below its peers has a median below its platform's by the drop thresholds. Exit status: 0 "
      "none found, 1 a regression or a silent node found, 2 unusable input (no database, a newer "
      "schema, a bad policy or output path).");

  auto* rep = sub->add_subcommand(
      "report",
      "Write the fleet's history as one self-contained HTML file: failing and regressed nodes "
      "first, the support matrix, a trend plot per node and watched value against its baseline");
  rep->add_option("--db", args->db, "The history database")->required()->type_name("FILE");
  rep->add_option("--html", args->html, "The HTML file to write (written atomically)")
      ->required()
      ->type_name("FILE");
  rep->add_option("--policy", args->policy,
                  "Read thresholds from this policy's \"regressions\" section")
      ->type_name("FILE");
  rep->add_option("--now", args->now,
                  "Count ages to this UTC time and leave later runs out; default: the newest "
                  "run's time")
      ->type_name("TIME");
  rep->add_option("--full-nodes", args->full_nodes,
                  "Nodes shown in full with plots, failing and regressed ones first (every node "
                  "is in the node table)")
      ->capture_default_str()
      ->check(plain_number() & CLI::Range(std::size_t{1}, std::size_t{100000}))
      ->type_name("N");
  rep->add_option("--points", args->points, "Runs per plot: the latest N")
      ->capture_default_str()
      ->check(plain_number() & CLI::Range(std::size_t{2}, std::size_t{100000}))
      ->type_name("N");
  rep->footer(
      "The file needs nothing else to be opened: inline CSS and SVG, no script, no external "
      "resource (its Content-Security-Policy forbids loading any). Every plot's numbers are "
      "also in a table under it. Exit status: 0 written, 2 unusable input (no database, a newer "
      "schema, a bad policy or output path).");

  return {sub, [args, ingest, show, reg, rep]() -> int {
            if (ingest->parsed()) return run_ingest(*args);
            if (show->parsed()) return run_show(*args);
            if (reg->parsed()) return run_regressions(*args);
            if (rep->parsed()) return run_report(*args);
            return kExitUsage;
          }};
}

}  // namespace jetgate::cli
