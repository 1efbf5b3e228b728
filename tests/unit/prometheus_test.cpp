// SPDX-License-Identifier: Apache-2.0
// `--prometheus FILE`: a node_exporter textfile-collector file. Every rendering is
// checked by the Prometheus project's own linter (`promtool check metrics`, Debian's
// prometheus package) and read back through a real node_exporter
// (prometheus-node-exporter, --collector.textfile.directory on a loopback port): the
// values scraped equal the document's, converted to base units.
#include "jetgate/report/prometheus.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/proc/child.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;

json probe_document() {
  return json::parse(R"({
    "schema_version": 1,
    "jetgate": {"version": "0.1.0", "commit": {"id": "0123456789abcdef0123456789abcdef01234567", "state": "clean"}},
    "generated_at": "2026-12-03T07:00:00Z",
    "facts_source": "live",
    "platform": {"arch": "aarch64", "kernel": {"release": "5.15.148-tegra"},
                 "tegra": {"is_tegra": true, "l4t": "36.4.3", "jetpack": "6.2",
                           "module": "Jetson Orin NX 16GB"},
                 "cuda": {"toolkit_version": "12.6.68"}},
    "gpu": {"driver": {"loaded": true, "version": "12060"}, "device_count": 1,
            "devices": [{"name": "Orin", "total_memory_bytes": 16000000000, "compute_capability": "8.7"}]},
    "probes": {
      "bandwidth": {"id": "bandwidth", "status": "PASS", "reason": "ok", "duration_ms": 1500,
                    "values": {"d2d_gbps": {"value": 81.5, "unit": "GB/s"},
                               "d2d_fraction_of_peak": {"value": 0.79, "unit": "fraction"},
                               "device_buffer_bytes": {"value": 268435456, "unit": "bytes"}},
                    "details": {}},
      "sync_path": {"id": "sync_path", "status": "WARN", "reason": "polling", "duration_ms": 2000,
                    "values": {"sync_blocking_sync_rtt_median_us": {"value": 41.0, "unit": "us"},
                               "sync_blocking_sync_cpu_fraction": {"value": 0.97, "unit": "fraction"}},
                    "details": {"modes": [{"mode": "blocking_sync", "wait": "busy_polling"},
                                          {"mode": "spin", "wait": "busy_polling"}]}},
      "decode": {"id": "decode", "status": "PASS", "reason": "ok", "duration_ms": 9000,
                 "values": {"decode_tok_s": {"value": 58.25, "unit": "tok/s"},
                            "decode_fraction_of_bound": {"value": 0.91, "unit": "fraction"}},
                 "details": {}},
      "launch": {"id": "launch", "status": "PASS", "reason": "ok", "duration_ms": 3,
                 "values": {"wrong_elements": {"value": 0, "unit": "count"}}, "details": {}}
    },
    "warnings": []
  })");
}

json gate_evidence(const std::string& status) {
  json e = probe_document();
  e["gate"] = "jetson-cuda-runtime";
  e["status"] = status;
  e["exit_code"] = status == "passed" ? 0 : 1;
  e["git_sha"] = "local";
  e["reason"] = "";
  e["lane"] = {{"node", "orin-nx-01"}, {"kind", "native"}};
  return e;
}

std::string render(const json& doc, const std::string& previous = {}) {
  report::PrometheusInput in;
  in.document = &doc;
  in.node = "host-a";
  in.previous = previous;
  return report::render_prometheus_textfile(in);
}

proc::ChildOutcome run_tool(std::vector<std::string> argv, std::optional<std::string> in = {}) {
  proc::ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.stdin_text = std::move(in);
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.max_output_bytes = 16u << 20;
  return proc::run_process(spec, limits);
}

// promtool's verdict: "" when the text is valid and lint-clean, else what it said.
std::string promtool_problems(const std::string& text) {
  auto o = run_tool({"promtool", "check", "metrics"}, text);
  EXPECT_EQ(o.kind, proc::ChildOutcome::Kind::exited)
      << o.describe() << " (install Debian's prometheus: scripts/install-deps.sh)";
  if (o.kind == proc::ChildOutcome::Kind::exited && o.exit_code == 0) return "";
  return o.output + o.error_text + " (exit " + std::to_string(o.exit_code) + ")";
}

// The jetgate_ lines of what a real node_exporter serves from a textfile directory
// holding FILE, as name{labels} -> value; node_textfile_scrape_error too.
// LOG: where node_exporter's own log goes.
std::map<std::string, double> scrape(const std::string& dir, const std::string& log = "/dev/null") {
  std::mt19937 rng(std::random_device{}());
  std::map<std::string, double> out;
  for (int attempt = 0; attempt < 5 && out.empty(); ++attempt) {
    const int port = 20000 + static_cast<int>(rng() % 40000);
    const std::string script =
        "prometheus-node-exporter --collector.disable-defaults --collector.textfile "
        "--collector.textfile.directory=\"$1\" --web.listen-address=127.0.0.1:$2 "
        ">\"$3\" 2>&1 & pid=$!\n"
        "for i in $(seq 100); do\n"
        "  if exec 3<>/dev/tcp/127.0.0.1/$2; then\n"
        "    printf 'GET /metrics HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3; cat <&3; "
        "kill $pid; exit 0\n"
        "  fi 2>/dev/null\n"
        "  kill -0 $pid 2>/dev/null || exit 3\n"
        "  sleep 0.1\n"
        "done\n"
        "kill $pid; exit 4\n";
    auto o = run_tool({"bash", "-c", script, "scrape", dir, std::to_string(port), log});
    EXPECT_EQ(o.kind, proc::ChildOutcome::Kind::exited)
        << o.describe() << " (install Debian's prometheus-node-exporter: scripts/install-deps.sh)";
    if (o.exit_code == 3) continue;  // the port was taken: another one
    EXPECT_EQ(o.exit_code, 0) << o.error_text;
    std::size_t pos = 0;
    while (pos < o.output.size()) {
      std::size_t end = o.output.find('\n', pos);
      if (end == std::string::npos) end = o.output.size();
      std::string line = o.output.substr(pos, end - pos);
      pos = end + 1;
      if (line.rfind("jetgate_", 0) != 0 && line.rfind("node_textfile_scrape_error", 0) != 0)
        continue;
      std::size_t space = line.rfind(' ');
      out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
  }
  return out;
}

TEST(Prometheus, ProbeDocumentInBaseUnits) {
  std::string text = render(probe_document());
  const std::string labels = R"(node="host-a",platform="Jetson Orin NX 16GB",producer="probe")";
  EXPECT_NE(text.find("jetgate_probe_bytes_per_second{probe=\"bandwidth\",metric=\"d2d_gbps\"," +
                      labels + "} 81500000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("jetgate_probe_seconds{probe=\"sync_path\",metric=\"sync_blocking_sync_rtt_"
                      "median_us\"," +
                      labels + "} 4.1e-05\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("jetgate_probe_tokens_per_second{probe=\"decode\",metric=\"decode_tok_s\"," +
                      labels + "} 58.25\n"),
            std::string::npos);
  EXPECT_NE(text.find("jetgate_probe_ratio{probe=\"decode\",metric=\"decode_fraction_of_bound\"," +
                      labels + "} 0.91\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("jetgate_probe_status{probe=\"sync_path\"," + labels + ",status=\"WARN\"} 1\n"),
      std::string::npos);
  EXPECT_NE(
      text.find("jetgate_probe_status{probe=\"sync_path\"," + labels + ",status=\"PASS\"} 0\n"),
      std::string::npos);
  EXPECT_NE(text.find("jetgate_sync_wait{probe=\"sync_path\"," + labels +
                      ",sched_mode=\"blocking_sync\",wait=\"busy_polling\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("jetgate_probe_duration_seconds{probe=\"decode\"," + labels + "} 9\n"),
            std::string::npos);
  EXPECT_NE(text.find("jetgate_evidence_timestamp_seconds{" + labels + "} 1796281200\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("jetgate_info{" + labels + ",version=\"0.1.0\",commit=\"0123456789abcdef"),
            std::string::npos);
  EXPECT_EQ(text.find("jetgate_gate_"), std::string::npos) << "a probe document has no gate";
  EXPECT_EQ(promtool_problems(text), "");
}

// The sync path writes its wait as "interrupt-driven" and "busy-polling"
// (probes/sync_classify.cpp); the state set's labels are interrupt_driven and
// busy_polling. Real evidence (docs/examples, an H200 run) has each mode's 1.
TEST(Prometheus, RealEvidenceSyncWaitsSetTheirState) {
  const json doc = json::parse(
      test::read_file(test::source_dir() + "/docs/examples/evidence-h200-cuda-runtime.json"));
  const std::string text = render(doc);
  const std::string head =
      "jetgate_sync_wait{probe=\"sync_path\",gate=\"cuda-runtime\",node=\"host-a\",platform="
      "\"NVIDIA H200 (x86_64)\",producer=\"run\",sched_mode=";
  EXPECT_NE(text.find(head + "\"blocking_sync\",wait=\"interrupt_driven\"} 1\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find(head + "\"spin\",wait=\"busy_polling\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find(head + "\"yield\",wait=\"interrupt_driven\"} 0\n"), std::string::npos)
      << text;
  EXPECT_EQ(promtool_problems(text), "");
}

TEST(Prometheus, GateStatusAndLastSuccessSurviveAFailedRun) {
  std::string passed = render(gate_evidence("passed"));
  const std::string labels =
      R"(gate="jetson-cuda-runtime",node="orin-nx-01",platform="Jetson Orin NX 16GB",producer="run")";
  EXPECT_NE(passed.find("jetgate_gate_status{" + labels + ",status=\"PASS\"} 1\n"),
            std::string::npos)
      << passed;
  EXPECT_NE(passed.find("jetgate_gate_last_success_timestamp_seconds{" + labels + "} 1796281200\n"),
            std::string::npos);
  EXPECT_EQ(promtool_problems(passed), "");

  json later = gate_evidence("failed");
  later["generated_at"] = "2026-12-04T07:00:00Z";
  std::string failed = render(later, passed);
  EXPECT_NE(failed.find("jetgate_gate_status{" + labels + ",status=\"FAIL\"} 1\n"),
            std::string::npos);
  EXPECT_NE(failed.find("jetgate_gate_last_run_timestamp_seconds{" + labels + "} 1796367600\n"),
            std::string::npos);
  EXPECT_NE(failed.find("jetgate_gate_last_success_timestamp_seconds{" + labels + "} 1796281200\n"),
            std::string::npos)
      << "the last success of the previous file is kept:\n"
      << failed;
  EXPECT_NE(failed.find("jetgate_gate_command_exit_code{" + labels + "} 1\n"), std::string::npos);
  EXPECT_EQ(promtool_problems(failed), "");

  // Without a previous success (or from a file of another gate), none is claimed.
  EXPECT_EQ(render(later).find("last_success"), std::string::npos);
  json other = gate_evidence("passed");
  other["gate"] = "cuda-runtime";
  EXPECT_EQ(render(later, render(other)).find("jetgate_gate_last_success"), std::string::npos);
}

TEST(Prometheus, PreviousLastSuccessReadsOnlyItsOwnWellFormedLine) {
  const std::string head =
      "jetgate_gate_last_success_timestamp_seconds{gate=\"g\",node=\"n\",platform=\"p\"} ";
  EXPECT_EQ(report::previous_last_success(head + "1796281200\n", "g", "n"), 1796281200.0);
  EXPECT_EQ(report::previous_last_success(head + "1.7e9", "g", "n"), 1.7e9);
  for (const char* bad : {"", "NaN", "+Inf", "-5", "12x", "1 2"})
    EXPECT_FALSE(report::previous_last_success(head + bad + "\n", "g", "n")) << bad;
  EXPECT_FALSE(report::previous_last_success(head + "5\n", "g", "other"));
  EXPECT_FALSE(report::previous_last_success(head + "5\n", "other", "n"));
  EXPECT_FALSE(report::previous_last_success("\xff\xfe{}}} \n\n", "g", "n"));
  // A gate id that carries label syntax cannot match another gate's line.
  EXPECT_FALSE(report::previous_last_success(head + "5\n", "g\",node=\"n", "n"));
}

TEST(Prometheus, OutsideStringsStayInsideTheirLabels) {
  json doc = gate_evidence("passed");
  const std::string hostile = "x\"} 1\njetgate_info{a=\"b\\\n# TYPE evil counter\n\xe2\x80\xae";
  doc["lane"]["node"] = hostile;
  doc["platform"]["tegra"]["module"] = hostile;
  doc["probes"]["bandwidth"]["values"][hostile] = {{"value", 1}, {"unit", "GB/s"}};
  std::string text = render(doc);
  EXPECT_EQ(promtool_problems(text), "") << text;
  EXPECT_EQ(text.find("\n# TYPE evil"), std::string::npos);
  EXPECT_EQ(report::prometheus_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(report::prometheus_label_value("\xff"), "\xef\xbf\xbd") << "not UTF-8: U+FFFD";

  // node_exporter reads the same labels back: one gate status series per status, not more.
  test::TempDir d;
  d.write("jetgate.prom", text);
  auto scraped = scrape(d.dir());
  int statuses = 0;
  for (const auto& [series, value] : scraped)
    if (series.rfind("jetgate_gate_status{", 0) == 0) ++statuses;
  EXPECT_EQ(statuses, 3);
  EXPECT_EQ(scraped["node_textfile_scrape_error"], 0);
}

TEST(Prometheus, ANodeExporterServesTheEvidenceValues) {
  test::TempDir d;
  json e = gate_evidence("passed");
  d.write("jetgate.prom", render(e));
  auto scraped = scrape(d.dir());
  ASSERT_FALSE(scraped.empty());
  EXPECT_EQ(scraped["node_textfile_scrape_error"], 0);
  const std::string node = R"(node="orin-nx-01",platform="Jetson Orin NX 16GB")";
  const std::string base = R"(gate="jetson-cuda-runtime",)" + node + R"(,producer="run")";
  // Every probe value of the evidence, converted to its base unit, as scraped.
  const std::map<std::string, std::pair<std::string, double>> units{
      {"GB/s", {"jetgate_probe_bytes_per_second", 1e9}}, {"us", {"jetgate_probe_seconds", 1e-6}},
      {"fraction", {"jetgate_probe_ratio", 1}},          {"bytes", {"jetgate_probe_bytes", 1}},
      {"tok/s", {"jetgate_probe_tokens_per_second", 1}}, {"count", {"jetgate_probe_items", 1}}};
  int compared = 0;
  for (const auto& [id, p] : e["probes"].items())
    for (const auto& [metric, m] : p["values"].items()) {
      const auto& [family, factor] = units.at(m["unit"].get<std::string>());
      const std::string series = family + R"({gate="jetson-cuda-runtime",metric=")" + metric +
                                 "\"," + node + ",probe=\"" + id + R"(",producer="run"})";
      ASSERT_TRUE(scraped.count(series)) << series;
      EXPECT_DOUBLE_EQ(scraped[series], m["value"].get<double>() * factor) << series;
      ++compared;
    }
  EXPECT_EQ(compared, 8);
  EXPECT_EQ(scraped["jetgate_gate_status{" + base + ",status=\"PASS\"}"], 1);
  EXPECT_EQ(scraped["jetgate_evidence_timestamp_seconds{" + base + "}"],
            static_cast<double>(*evidence::utc_seconds_of_timestamp("2026-12-03T07:00:00Z")));
}

TEST(Prometheus, ProbeAndRunTextfilesOfOneNodeScrapeFromOneNodeExporterWithoutAnError) {
  // `probe --prometheus` and `run --prometheus` on one node, as a DaemonSet and a
  // cron job would: the same node label, the same probes. Their series differ by
  // producer (and run's by gate), so node_exporter serves both and logs nothing.
  test::TempDir d;
  json e = gate_evidence("passed");
  json probe = probe_document();
  report::PrometheusInput in;
  in.document = &probe;
  in.node = "orin-nx-01";
  d.write("tf/jetgate-probe.prom", report::render_prometheus_textfile(in));
  d.write("tf/jetgate-run.prom", render(e));
  auto scraped = scrape(d.path("tf"), d.path("exporter.log"));
  ASSERT_FALSE(scraped.empty());
  EXPECT_EQ(scraped["node_textfile_scrape_error"], 0);
  const std::string log = test::read_file(d.path("exporter.log"));
  EXPECT_EQ(log.find("level=error"), std::string::npos) << log;
  EXPECT_EQ(log.find("collected before"), std::string::npos) << log;
  const std::string where = R"(node="orin-nx-01",platform="Jetson Orin NX 16GB")";
  EXPECT_EQ(scraped.count("jetgate_evidence_timestamp_seconds{" + where + R"(,producer="probe"})"),
            1u);
  EXPECT_EQ(scraped.count(R"(jetgate_evidence_timestamp_seconds{gate="jetson-cuda-runtime",)" +
                          where + R"(,producer="run"})"),
            1u);
  int d2d = 0;
  for (const auto& [series, value] : scraped)
    if (series.find(R"(metric="d2d_gbps")") != std::string::npos) ++d2d;
  EXPECT_EQ(d2d, 2) << "the probe's and the run's d2d_gbps, both served";
}

TEST(Prometheus, ProbeWritesTheFileAndRefusesOutputsThatAreNotFiles) {
  test::TempDir d;
  const std::string root = test::fixtures_dir() + "/orin-nx-16gb-jp60/root";
  // A recording is not this host: without --node its metrics would be published under
  // this host's name, so that is refused, and nothing is written.
  auto r = test::run_jetgate({"probe", "--root", root, "--prometheus", d.path("jetgate.prom")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("name the node the recording is of with --node"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(d.path("jetgate.prom")));
  // --node names the node its series speak for, and jetgate_info says it is a recording.
  r = test::run_jetgate(
      {"probe", "--root", root, "--prometheus", d.path("n.prom"), "--node", "orin-nx-07"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = test::read_file(d.path("n.prom"));
  EXPECT_NE(text.find("jetgate_info{node=\"orin-nx-07\","), std::string::npos) << text;
  EXPECT_NE(text.find("facts_source=\"recorded\""), std::string::npos);
  EXPECT_EQ(promtool_problems(text), "");
  EXPECT_NE(text.find(",producer=\"probe\","), std::string::npos) << text;
  // A device, a directory: refused before anything is measured, and left alone.
  for (const std::string& bad : {std::string("/dev/null"), d.dir()}) {
    auto refused = test::run_jetgate({"probe", "--root", root, "--prometheus", bad, "--node", "n"});
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
    EXPECT_NE(refused.err.find("--prometheus"), std::string::npos) << refused.err;
  }
  auto dry = test::run_jetgate(
      {"run", "cuda-runtime", "--prometheus", "/dev/null", "--evidence-dir", d.path("ev")});
  EXPECT_EQ(dry.exit_code, 2) << dry.err;
}

}  // namespace
}  // namespace jetgate
