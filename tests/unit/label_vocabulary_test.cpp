// SPDX-License-Identifier: Apache-2.0
// One vocabulary for the sync path's wait (issue 40): the NFD labels, the Prometheus
// textfile and the history say interrupt_driven, busy_polling and unclear whatever
// spelling the probe wrote ("busy-polling", probes/sync_classify.cpp), and the examples in
// docs/kubernetes.md and docs/metrics.md use the words that are written. A nodeSelector
// copied from the docs must match what a node carries.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/probes/sync_classify.hpp"
#include "jetgate/report/nfd_features.hpp"
#include "jetgate/report/prometheus.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;

// Evidence whose sync_path probe wrote each wait kind as the probe spells it.
json evidence_with_every_wait() {
  using probes::WaitKind;
  json modes = json::array(
      {{{"mode", "blocking_sync"}, {"wait", probes::to_string(WaitKind::interrupt_driven)}},
       {{"mode", "spin"}, {"wait", probes::to_string(WaitKind::busy_polling)}},
       {{"mode", "yield"}, {"wait", probes::to_string(WaitKind::unclear)}}});
  return {{"schema_version", 1},
          {"jetgate", {{"version", "0.1.0"}}},
          {"generated_at", "2026-12-03T07:00:00Z"},
          {"gate", "gpu-node"},
          {"status", "passed"},
          {"exit_code", 0},
          {"git_sha", "local"},
          {"reason", ""},
          {"lane", {{"node", "orin-nx-01"}}},
          {"platform", {{"arch", "aarch64"}}},
          {"probes", {{"sync_path", {{"status", "WARN"}, {"details", {{"modes", modes}}}}}}}};
}

std::set<std::string> matches(const std::string& text, const std::string& pattern) {
  std::set<std::string> out;
  std::regex re(pattern);
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    out.insert((*it)[1]);
  return out;
}

const std::set<std::string> kWords = {"interrupt_driven", "busy_polling", "unclear"};

TEST(LabelVocabulary, NfdPrometheusAndHistorySayTheSameWords) {
  const auto doc = evidence_with_every_wait();
  // The probe itself writes them with '-': the test would prove nothing otherwise.
  ASSERT_EQ(std::string(probes::to_string(probes::WaitKind::busy_polling)), "busy-polling");
  report::NfdFeaturesInput nfd;
  nfd.document = &doc;
  nfd.expiry_hours = 12;
  const auto labels = report::render_nfd_features(nfd);
  EXPECT_EQ(matches(labels, "/sync-wait\\.[a-z_]+=([A-Za-z0-9._-]+)\\n"), kWords) << labels;
  EXPECT_NE(labels.find("/sync-wait.spin=busy_polling\n"), std::string::npos) << labels;
  report::PrometheusInput prom;
  prom.document = &doc;
  prom.node = "n";
  const auto text = report::render_prometheus_textfile(prom);
  EXPECT_EQ(matches(text, "jetgate_sync_wait\\{[^}]*wait=\"([^\"]+)\"\\} 1\\n"), kWords) << text;
  // The history stores what probe_readings gives (history/store.cpp).
  std::set<std::string> history;
  for (const auto& r : evidence::probe_readings(doc))
    for (const auto& w : r.waits) history.insert(w.wait);
  EXPECT_EQ(history, kWords);
}

TEST(LabelVocabulary, TheDocsExamplesUseTheWordsThatAreWritten) {
  const auto k8s = test::read_file(test::source_dir() + "/docs/kubernetes.md");
  const auto metrics = test::read_file(test::source_dir() + "/docs/metrics.md");
  // Every sync-wait label value in the example feature file, every wait in a selector.
  const auto k8s_values = matches(
      k8s,
      "jetgate\\.feature\\.node\\.kubernetes\\.io/sync-wait\\.[a-z_]+[=:] *\"?([A-Za-z0-9._-]+)");
  ASSERT_FALSE(k8s_values.empty()) << "docs/kubernetes.md shows no sync-wait label";
  for (const auto& v : k8s_values) EXPECT_TRUE(kWords.count(v)) << "docs/kubernetes.md: " << v;
  // Backticked words in the label table's sync-wait row.
  auto row = k8s.find("| `sync-wait.MODE` |");
  ASSERT_NE(row, std::string::npos);
  const auto row_text = k8s.substr(row, k8s.find('\n', row) - row);
  const auto row_words = matches(row_text, "`([a-z_]+)`");
  for (const auto& w : kWords) EXPECT_TRUE(row_words.count(w)) << w << " in " << row_text;
  const auto metric_values = matches(metrics, "jetgate_sync_wait\\{[^}]*wait=\"([^\"]+)\"");
  ASSERT_FALSE(metric_values.empty()) << "docs/metrics.md shows no jetgate_sync_wait series";
  for (const auto& v : metric_values) EXPECT_TRUE(kWords.count(v)) << "docs/metrics.md: " << v;
}

}  // namespace
}  // namespace jetgate
