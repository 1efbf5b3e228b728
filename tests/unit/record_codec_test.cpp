// SPDX-License-Identifier: Apache-2.0
// record/codec: a document read into a Record and written back is the same
// bytes (every JSON file under tests/fixtures and docs/examples, the
// recorded machines' goldens and other tools' evidence among them), the
// typed members read what the document says, and a member of an unexpected
// type is unknown in the Record and kept as it came.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/policy/requirements.hpp"
#include "jetgate/record/codec.hpp"
#include "jetgate/report/nfd_features.hpp"
#include "jetgate/report/platform_text.hpp"
#include "jetgate/report/prometheus.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

namespace stdfs = std::filesystem;
using nlohmann::json;

std::string read_text(const stdfs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(RecordCodec, EveryFixtureAndExampleSurvivesTheRoundTripByteForByte) {
  int documents = 0, with_facts = 0;
  for (const auto& dir : {test::fixtures_dir(), test::source_dir() + "/docs/examples"})
    for (const auto& entry : stdfs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
      auto doc = parse_json_text(read_text(entry.path()), entry.path().string());
      if (!doc || !doc->is_object()) continue;
      ++documents;
      const record::Record r = record::read(*doc);
      with_facts += r.has_platform ? 1 : 0;
      EXPECT_EQ(dump_json(record::to_json(r), 2), dump_json(*doc, 2)) << entry.path();
    }
  EXPECT_GT(documents, 50);
  EXPECT_GT(with_facts, 10) << "the recorded machines' goldens carry /platform";
}

TEST(RecordCodec, TheTypedMembersReadWhatTheDocumentSays) {
  auto doc = parse_json_text(read_text(test::fixtures_dir() + "/orin-nx-16gb-jp60/expected.json"),
                             "golden");
  ASSERT_TRUE(doc);
  const auto r = record::read(*doc);
  EXPECT_EQ(r.platform.tegra.l4t.text(), (*doc)["platform"]["tegra"]["l4t"].get<std::string>());
  EXPECT_EQ(r.platform.tegra.l4t.source, "dpkg:nvidia-l4t-core");
  EXPECT_EQ(r.platform.tegra.is_tegra, true);
  EXPECT_EQ(r.platform.arch, (*doc)["platform"]["arch"].get<std::string>());
  // What the Record holds typed is no longer in rest; the rest keeps its neighbours.
  EXPECT_FALSE(r.rest["platform"]["tegra"].contains("l4t"));
  EXPECT_TRUE(r.rest["platform"]["tegra"].contains("driver"));
}

TEST(RecordCodec, AMemberOfAnotherTypeIsUnknownAndKeptAsItCame) {
  json doc = {{"platform",
               {{"arch", 64},
                {"tegra", {{"l4t", json::array({36, 4})}, {"is_tegra", "yes"}}},
                {"memory", {{"total_bytes", 1.5}}}}},
              {"gpu", {{"devices", json::array({"not an object", {{"name", "GPU 0"}}})}}},
              {"probes",
               {{"launch", {{"status", 1}, {"values", {{"x", {{"value", "7"}}}}}}},
                {"odd", "not an object"}}},
              {"newer_tool", {{"field", true}}}};
  const auto r = record::read(doc);
  EXPECT_FALSE(r.platform.arch);
  EXPECT_FALSE(r.platform.tegra.l4t.known());
  EXPECT_EQ(r.platform.tegra.l4t.text(), "unknown");
  EXPECT_FALSE(r.platform.tegra.is_tegra);
  EXPECT_FALSE(r.platform.memory_total_bytes) << "1.5 bytes is not an integer";
  ASSERT_EQ(r.gpu.devices.size(), 2u);
  EXPECT_FALSE(r.gpu.devices[0].name);
  EXPECT_EQ(r.gpu.devices[1].name, "GPU 0");
  ASSERT_EQ(r.probes.count("launch"), 1u);
  EXPECT_FALSE(r.probes.at("launch").status);
  EXPECT_TRUE(r.probes.at("launch").values.empty());
  EXPECT_EQ(r.probes.count("odd"), 0u);
  EXPECT_EQ(dump_json(record::to_json(r)), dump_json(doc));
}

TEST(RecordCodec, KnownOnlyKeepsNoRestAndTextThatIsNotJsonIsAnEmptyRecord) {
  json doc = {{"platform", {{"tegra", {{"l4t", "36.4.3"}}}, {"other", 1}}}};
  const auto r = record::read(doc, record::Keep::known);
  EXPECT_EQ(r.platform.tegra.l4t.text(), "36.4.3");
  EXPECT_TRUE(r.rest.empty());
  const auto bad = record::read(std::string_view("{\"platform\": "));
  EXPECT_FALSE(bad.has_platform);
  EXPECT_EQ(bad.platform.tegra.l4t.text(), "unknown");
  const auto array = record::read(json::array({1, 2}));
  EXPECT_FALSE(array.has_platform);
}

TEST(RecordCodec, ARecordBuiltInCodeWritesItsMembersAtTheirKeys) {
  record::Record r;
  r.platform.tegra.l4t.version = "36.4.3";
  record::Device orin;
  orin.name = "Orin";
  orin.compute_capability = "8.7";
  r.gpu.devices.push_back(orin);
  record::Measured bandwidth;
  bandwidth.value.value = 12.5;
  bandwidth.unit = "GB/s";
  r.probes["memory"].values["d2d_bandwidth"] = bandwidth;
  r.probes["memory"].status = "PASS";
  const json out = record::to_json(r);
  EXPECT_EQ(out["platform"]["tegra"]["l4t"], "36.4.3");
  EXPECT_EQ(out["gpu"]["devices"][0]["name"], "Orin");
  EXPECT_EQ(out["probes"]["memory"]["values"]["d2d_bandwidth"]["value"], 12.5);
  EXPECT_EQ(out["probes"]["memory"]["status"], "PASS");
  EXPECT_EQ(dump_json(record::to_json(record::read(out))), dump_json(out));
}

// The L4T release is read in one place: every output says the same release,
// wherever it came from, and the same "unknown" when there is none.
TEST(RecordCodec, EveryOutputReadsTheSameL4tRelease) {
  auto doc = parse_json_text(read_text(test::fixtures_dir() + "/orin-nx-16gb-jp60/expected.json"),
                             "golden");
  ASSERT_TRUE(doc);
  const std::string l4t = (*doc)["platform"]["tegra"]["l4t"];
  ASSERT_EQ((*doc)["platform"]["tegra"]["l4t_source"], "dpkg:nvidia-l4t-core");
  const auto r = record::read(*doc);
  policy::Requirements want;
  want.l4t = policy::VersionRange{l4t, l4t};
  auto met = policy::evaluate_requirements(want, r);
  ASSERT_EQ(met.size(), 1u);
  EXPECT_TRUE(met[0].met) << met[0].why;
  EXPECT_EQ(met[0].why, "L4T is " + l4t);
  EXPECT_NE(claims::platform_key(r).runtime.find("(L4T " + l4t + ")"), std::string::npos);
  EXPECT_NE(report::render_platform_text(r).find("L4T:               " + l4t + "\n"),
            std::string::npos);
  report::NfdFeaturesInput nfd;
  nfd.document = &*doc;
  EXPECT_NE(report::render_nfd_features(nfd).find("/l4t=" + l4t + "\n"), std::string::npos);
  report::PrometheusInput prom;
  prom.document = &*doc;
  prom.node = "n";
  EXPECT_NE(report::render_prometheus_textfile(prom).find("l4t=\"" + l4t + "\""),
            std::string::npos);

  // No release: one "unknown" (and no label or requirement met on a guess).
  json none = *doc;
  none["platform"]["tegra"]["l4t"] = nullptr;
  const auto u = record::read(none);
  EXPECT_EQ(u.platform.tegra.l4t.text(), "unknown");
  EXPECT_NE(report::render_platform_text(u).find("L4T:               unknown\n"),
            std::string::npos);
  EXPECT_NE(claims::platform_key(u).runtime.find("(L4T unknown)"), std::string::npos);
  EXPECT_FALSE(policy::evaluate_requirements(want, u)[0].met);
  nfd.document = &none;
  EXPECT_EQ(report::render_nfd_features(nfd).find("/l4t="), std::string::npos);
}

// The sync path's wait as the probe writes it ("busy-polling") is the label's
// and the textfile's spelling (busy_polling) in every output.
TEST(RecordCodec, TheProbesWaitIsOneSpellingInEveryOutput) {
  json doc = {
      {"generated_at", "2026-12-01T00:00:00Z"},
      {"probes",
       {{"sync_path",
         {{"status", "PASS"},
          {"details",
           {{"modes",
             json::array({{{"mode", "spin"}, {"wait", "busy-polling"}},
                          {{"mode", "blocking_sync"}, {"wait", "interrupt-driven"}}})}}}}}}}};
  report::NfdFeaturesInput nfd;
  nfd.document = &doc;
  const std::string labels = report::render_nfd_features(nfd);
  EXPECT_NE(labels.find("sync-wait.spin=busy_polling\n"), std::string::npos) << labels;
  EXPECT_NE(labels.find("sync-wait.blocking_sync=interrupt_driven\n"), std::string::npos) << labels;
  EXPECT_EQ(labels.find("busy-polling"), std::string::npos) << labels;
  report::PrometheusInput prom;
  prom.document = &doc;
  prom.node = "n";
  const std::string text = report::render_prometheus_textfile(prom);
  EXPECT_NE(text.find("sched_mode=\"spin\",wait=\"busy_polling\"} 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("busy-polling"), std::string::npos) << text;
}

}  // namespace
}  // namespace jetgate
