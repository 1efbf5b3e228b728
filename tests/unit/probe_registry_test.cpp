// SPDX-License-Identifier: Apache-2.0
// The probe registry is the one list of probes and metrics: the probes write only
// what it declares, the policy refuses thresholds on anything else, and every other
// list of probe ids reads it.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "jetgate/core/result.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/python_runtime.hpp"
#include "jetgate/probes/registry.hpp"
#include "jetgate/probes/sync_classify.hpp"
#include "jetgate/report/probe_list.hpp"

namespace jetgate::probes {
namespace {

TEST(ProbeRegistry, IdsAndMetricNamesAreUniqueAndUnitsGiven) {
  std::set<std::string> ids;
  for (const auto& p : probe_registry()) {
    EXPECT_TRUE(ids.insert(p.id).second) << "probe " << p.id << " is registered twice";
    EXPECT_FALSE(p.what.empty()) << p.id;
    std::set<std::string> names;
    for (const auto& m : p.metrics) {
      EXPECT_TRUE(names.insert(m.name).second) << p.id << " declares " << m.name << " twice";
      EXPECT_FALSE(m.unit.empty()) << p.id << "." << m.name << " has no unit";
      EXPECT_FALSE(m.what.empty()) << p.id << "." << m.name;
    }
  }
}

TEST(ProbeRegistry, TheRunnersAreTheRegisteredProbes) {
  std::vector<std::string> cuda_ids;
  for (const auto& p : cuda_probes()) {
    cuda_ids.emplace_back(p.id);
    const ProbeSpec* spec = find_probe_spec(p.id);
    ASSERT_NE(spec, nullptr) << p.id;
    EXPECT_EQ(p.by_default, spec->by_default) << p.id;
  }
  EXPECT_EQ(cuda_ids, registered_probe_ids(ProbeKind::cuda))
      << "every registered CUDA probe needs a function in cuda_section.cpp, in registry order";
  EXPECT_EQ(python_probe_ids(), registered_probe_ids(ProbeKind::python));
}

// What sync_path writes for each mode is what the registry declares for it.
TEST(ProbeRegistry, SyncValuesAreDeclared) {
  std::vector<SyncModeMeasurement> modes;
  for (const auto& m : sync_modes()) {
    SyncModeMeasurement s;
    s.mode = m;
    s.round_trip_us = {5, 6, 7, 8};
    s.wait_wall_s = 1;
    s.wait_cpu_s = 0.01;
    modes.push_back(s);
  }
  ProbeResult r;
  add_sync_values(assess_sync_path(modes, {}), r);
  ASSERT_FALSE(r.values.empty());
  const ProbeSpec* spec = find_probe_spec("sync_path");
  ASSERT_NE(spec, nullptr);
  for (const auto& [name, m] : r.values) {
    const MetricSpec* declared = find_metric(*spec, name);
    ASSERT_NE(declared, nullptr) << "sync_path writes " << name << ", which it does not declare";
    EXPECT_EQ(declared->unit, m.unit) << name;
  }
}

policy::PolicyIssue probe_issue(const std::string& probes_json) {
  std::string text = R"({"schema_version": 1, "owner": "o", "cadence": "c",
    "maximum_evidence_age_days": 14,
    
    "gates": [{"id": "g", "description": "d", "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["README.md"],
               "probes": )" +
                     probes_json + "}]}";
  auto p = policy::parse_policy(text, "policy.json", JETGATE_SOURCE_DIR);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  if (!p.ok()) return {};
  auto issues = policy::issues_of(*p, "g");
  std::string all;
  for (const auto& i : issues) all += i.line() + "\n";
  for (const auto& i : issues)
    if (i.what.find("probes[0]") != std::string::npos) return i;
  ADD_FAILURE() << "no issue about probes[0]:\n" << all;
  return {};
}

TEST(ProbeRegistry, APolicyThresholdOnAMetricNoProbeReportsIsAnErrorWithADidYouMean) {
  auto issue =
      probe_issue(R"([{"probe": "bandwidth", "metric": "d2d_fraction_of_peek", "min": 0.6}])");
  EXPECT_NE(issue.what.find("reports no metric"), std::string::npos) << issue.what;
  EXPECT_NE(issue.what.find("d2d_fraction_of_peak"), std::string::npos)
      << "the did-you-mean names the right spelling: " << issue.what;
  EXPECT_NE(issue.next.find("read_fraction_of_peak"), std::string::npos)
      << "the next step lists the probe's metrics: " << issue.next;
}

TEST(ProbeRegistry, AMetricOfAnotherProbeIsAnError) {
  auto issue = probe_issue(R"([{"probe": "launch", "metric": "d2d_gbps", "min": 1}])");
  EXPECT_NE(issue.what.find("launch reports no metric"), std::string::npos) << issue.what;
}

TEST(ProbeRegistry, AnUnknownProbeGetsADidYouMean) {
  auto issue = probe_issue(R"([{"probe": "bandwith", "status": "PASS"}])");
  EXPECT_NE(issue.what.find("unknown probe"), std::string::npos) << issue.what;
  EXPECT_NE(issue.what.find("bandwidth"), std::string::npos) << issue.what;
}

TEST(ProbeRegistry, EveryDeclaredMetricIsAcceptedByThePolicy) {
  for (const auto& p : probe_registry())
    for (const auto& m : p.metrics) {
      std::string text = R"({"schema_version": 1, "owner": "o", "cadence": "c",
        "maximum_evidence_age_days": 14,
        
        "gates": [{"id": "g", "description": "d", "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["README.md"],
                   "probes": [{"probe": ")" +
                         p.id + R"(", "metric": ")" + m.name + R"(", "min": 0}]}]})";
      auto parsed = policy::parse_policy(text, "policy.json", JETGATE_SOURCE_DIR);
      ASSERT_TRUE(parsed.ok());
      EXPECT_TRUE(policy::issues_of(*parsed, "g").empty()) << p.id << "." << m.name;
    }
}

}  // namespace
}  // namespace jetgate::probes

namespace jetgate::probes {
namespace {

TEST(ProbeRegistry, DocsTableIsTheRegistry) {
  std::ifstream in(std::string(JETGATE_SOURCE_DIR) + "/docs/probes.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const std::string begin = "<!-- jetgate:metrics:begin -->\n",
                    end = "<!-- jetgate:metrics:end -->";
  auto b = s.find(begin), e = s.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(s.substr(b + begin.size(), e - b - begin.size()), report::render_probe_list_markdown())
      << "regenerate docs/probes.md's metric table from report::render_probe_list_markdown()";
}

TEST(ProbeRegistry, ListJsonNamesEveryProbeAndMetric) {
  auto j = report::probe_list_json();
  ASSERT_EQ(j["probes"].size(), probe_registry().size());
  for (std::size_t i = 0; i < probe_registry().size(); ++i) {
    EXPECT_EQ(j["probes"][i]["id"], probe_registry()[i].id);
    EXPECT_EQ(j["probes"][i]["metrics"].size(), probe_registry()[i].metrics.size());
  }
}

}  // namespace
}  // namespace jetgate::probes
