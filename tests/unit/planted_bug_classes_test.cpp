// SPDX-License-Identifier: Apache-2.0
// Behaviour tests for the classes of bugs that planted mutants survived
// (whole-vs-prefix matches, versions, boundaries, JUnit dialects, the board
// id table, the sanitizer's names). Each test holds both sides of its
// boundary, so a mutant that moves the boundary either way fails it;
// scripts/mutate.py plants those mutants.
#include <gtest/gtest.h>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/gate_decision.hpp"
#include "jetgate/core/identifier.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/facts/module_table.hpp"
#include "jetgate/gate/junit.hpp"
#include "jetgate/policy/requirements.hpp"
#include "jetgate/report/history_text.hpp"
#include "jetgate/report/prometheus.hpp"
#include "jetgate/report/sanitize.hpp"

namespace jetgate {
namespace {

policy::Requirements requires_module(std::vector<std::string> modules) {
  policy::Requirements r;
  r.module = std::move(modules);
  return r;
}

bool met(const policy::Requirements& r, const nlohmann::json& platform,
         const nlohmann::json& gpu = nullptr) {
  auto outcomes = policy::evaluate_requirements(r, platform, gpu);
  EXPECT_FALSE(outcomes.empty());
  return policy::all_met(outcomes);
}

const nlohmann::json kOrin64 = {{"arch", "aarch64"},
                                {"tegra",
                                 {{"is_tegra", true},
                                  {"l4t", "36.4.3"},
                                  {"module", "Jetson AGX Orin 64GB"},
                                  {"part_number", "p3701-0005"}}}};

// The one helper every identifier comparison uses (core/identifier.hpp): a near
// miss on each side of each boundary.
TEST(PlantedBugClasses, IdentifiersMatchWholeNearMissesOnBothSides) {
  EXPECT_TRUE(same_identifier("/dev/nvhost-ctrl", "/dev/nvhost-ctrl"));
  EXPECT_FALSE(same_identifier("/dev/nvhost-ctrl", "/dev/nvhost-ctrl-gpu"));
  EXPECT_FALSE(same_identifier("/dev/nvhost-ctrl-gpu", "/dev/nvhost-ctrl"));
  EXPECT_FALSE(same_identifier("3f6c2a1b9d8e", "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3"));
  EXPECT_FALSE(same_identifier("Cuda", "cuda"));
  EXPECT_FALSE(same_identifier("", "x"));
  EXPECT_TRUE(same_identifier("", ""));
  EXPECT_FALSE(same_identifier(std::string_view("ab\0", 3), "ab"));

  const char* vermagic = "5.15.148-tegra SMP preempt mod_unload modversions aarch64";
  EXPECT_TRUE(first_field_is(vermagic, "5.15.148-tegra"));
  EXPECT_FALSE(first_field_is(vermagic, "5.15.148"));
  EXPECT_FALSE(first_field_is(vermagic, "5.15.148-tegra-rt"));
  EXPECT_FALSE(first_field_is("5.15.148-tegra-rt SMP", "5.15.148-tegra"));
  EXPECT_TRUE(first_field_is("5.15.148-tegra", "5.15.148-tegra"));  // no other field
  EXPECT_TRUE(first_field_is("5.15.148-tegra\tSMP", "5.15.148-tegra"));
  EXPECT_FALSE(first_field_is("", ""));
  EXPECT_FALSE(first_field_is(" 5.15.148-tegra", "5.15.148-tegra"));

  EXPECT_TRUE(node_path_matches("/dev/nvidia*", "/dev/nvidia0"));
  EXPECT_TRUE(node_path_matches("/dev/nvidia*", "/dev/nvidia12"));
  EXPECT_FALSE(node_path_matches("/dev/nvidia*", "/dev/nvidia"));
  EXPECT_FALSE(node_path_matches("/dev/nvidia*", "/dev/nvidiactl"));
  EXPECT_FALSE(node_path_matches("/dev/nvidia*", "/dev/nvidia0x"));
  EXPECT_FALSE(node_path_matches("/dev/nvidia*", "/dev/nvidi0"));
  EXPECT_FALSE(node_path_matches("/dev/nvhost-ctrl", "/dev/nvhost-ctrl-gpu"));
  EXPECT_FALSE(node_path_matches("/dev/nvhost-ctrl-gpu", "/dev/nvhost-ctrl"));
}

// Fast paths keep the slow path's rules: a plain ASCII label value with only a
// newline to escape still has it escaped (the text format ends a sample at a raw
// newline), and each character the slow path escapes is escaped when it is the only one.
TEST(PlantedBugClasses, TheLabelEscapersFastPathStillEscapesEachSpecialCharacter) {
  EXPECT_EQ(report::prometheus_label_value("plain ascii"), "plain ascii");
  EXPECT_EQ(report::prometheus_label_value("a\nb"), "a\\nb");
  EXPECT_EQ(report::prometheus_label_value("\n"), "\\n");
  EXPECT_EQ(report::prometheus_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(report::prometheus_label_value("a\"b"), "a\\\"b");
  EXPECT_EQ(report::prometheus_label_value("caf\xc3\xa9"), "caf\xc3\xa9");  // UTF-8 kept
  EXPECT_EQ(report::prometheus_label_value("\x80"), "\xef\xbf\xbd");
}

// GB/s is 1e9 bytes per second (how every probe measures it), never 2^30: 2.5 GB/s
// is stored as 2.5e9 bytes/s and shown again as 2.5 GB/s.
TEST(PlantedBugClasses, GigabytesPerSecondAre1e9BytesNot2To30) {
  auto doc = nlohmann::json::parse(R"({"probes": {"bandwidth": {"status": "PASS",
      "values": {"d2d_gbps": {"value": 2.5, "unit": "GB/s"},
                 "device_buffer_bytes": {"value": 1073741824, "unit": "bytes"}}}}})");
  auto readings = evidence::probe_readings(doc);
  ASSERT_EQ(readings.size(), 1u);
  ASSERT_EQ(readings[0].values.size(), 2u);
  EXPECT_EQ(readings[0].values[0].base, "bytes_per_second");
  EXPECT_DOUBLE_EQ(readings[0].values[0].value, 2.5e9);
  EXPECT_DOUBLE_EQ(readings[0].values[1].value, 1073741824.0);
  EXPECT_DOUBLE_EQ(report::people_unit_of("bytes_per_second").scale, 1e9);
  EXPECT_EQ(report::people_unit_of("bytes_per_second").unit, "GB/s");
  EXPECT_DOUBLE_EQ(report::people_unit_of("bytes").scale, 1e9);
  EXPECT_NE(report::people_number(2.5e9, "bytes_per_second").find("2.5"), std::string::npos)
      << report::people_number(2.5e9, "bytes_per_second");
}

TEST(PlantedBugClasses, ModulesMatchWholeNeverByPrefix) {
  EXPECT_TRUE(met(requires_module({"Jetson AGX Orin 64GB"}), kOrin64));
  EXPECT_TRUE(met(requires_module({"jetson agx orin 64gb"}), kOrin64));  // case does not matter
  EXPECT_TRUE(met(requires_module({"P3701-0005"}), kOrin64));
  EXPECT_FALSE(met(requires_module({"Jetson AGX Orin"}), kOrin64));
  EXPECT_FALSE(met(requires_module({"Jetson AGX Orin 64GB extra"}), kOrin64));
  EXPECT_FALSE(met(requires_module({"p3701"}), kOrin64));
  EXPECT_FALSE(met(requires_module({"p3701-000"}), kOrin64));
}

nlohmann::json gpu_with(const char* driver, std::int64_t devices, std::int64_t memory) {
  nlohmann::json devs = nlohmann::json::array();
  for (std::int64_t i = 0; i < devices; ++i) devs.push_back({{"total_memory_bytes", memory}});
  return {{"driver", {{"loaded", true}, {"version", driver}}},
          {"device_count", devices},
          {"devices", devs}};
}

TEST(PlantedBugClasses, VersionsCompareEveryComponentOfTheBound) {
  policy::Requirements r;
  r.min_cuda_driver = "12.2";
  EXPECT_FALSE(met(r, kOrin64, gpu_with("12", 1, 1)));  // "12" is 12.0, below 12.2
  EXPECT_FALSE(met(r, kOrin64, gpu_with("12.1", 1, 1)));
  EXPECT_TRUE(met(r, kOrin64, gpu_with("12.2", 1, 1)));
  EXPECT_TRUE(met(r, kOrin64, gpu_with("12.10", 1, 1)));  // numeric, not text
  EXPECT_TRUE(met(r, kOrin64, gpu_with("13.0", 1, 1)));
  EXPECT_EQ(policy::compare_version_prefix("12", "12.2"), -1);
  EXPECT_EQ(policy::compare_version_prefix("36.4.3", "36"), 0);  // a bound's own components
  EXPECT_EQ(policy::compare_version_prefix("36.4.3", "36.5"), -1);
  EXPECT_EQ(policy::compare_version_prefix("36.4.3", "36.4.2"), 1);
  policy::Requirements l4t;
  l4t.l4t = policy::VersionRange{std::string("36.4.4"), std::nullopt};
  EXPECT_FALSE(met(l4t, kOrin64));
  l4t.l4t = policy::VersionRange{std::string("36.4.3"), std::string("36")};
  EXPECT_TRUE(met(l4t, kOrin64));
}

TEST(PlantedBugClasses, MemoryEqualToTheRequirementMeetsItOneByteLessDoesNot) {
  policy::Requirements r;
  r.min_memory_bytes = 8LL << 30;
  EXPECT_TRUE(met(r, kOrin64, gpu_with("12.6", 1, 8LL << 30)));
  EXPECT_FALSE(met(r, kOrin64, gpu_with("12.6", 1, (8LL << 30) - 1)));
  EXPECT_TRUE(met(r, kOrin64, gpu_with("12.6", 1, (8LL << 30) + 1)));
}

TEST(PlantedBugClasses, CudaNeedsADeviceNotOnlyADriver) {
  policy::Requirements r;
  r.cuda = true;
  EXPECT_FALSE(met(r, kOrin64, gpu_with("12.6", 0, 0)));
  EXPECT_TRUE(met(r, kOrin64, gpu_with("12.6", 1, 1)));
  nlohmann::json unloaded = gpu_with("12.6", 1, 1);
  unloaded["driver"]["loaded"] = false;
  EXPECT_FALSE(met(r, kOrin64, unloaded));
}

evidence::Date day(const char* text) {
  return *evidence::parse_iso_date(text);
}

TEST(PlantedBugClasses, TimestampsAtUtcMidnightWithOffsetsAndWithoutZones) {
  using evidence::utc_date_of_timestamp;
  EXPECT_EQ(utc_date_of_timestamp("2026-11-30T00:00:00Z"), day("2026-11-30"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T23:59:59Z"), day("2026-11-29"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-30T00:00:00+00:00"), day("2026-11-30"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-30T01:00:00+01:00"), day("2026-11-30"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-30T00:59:59+01:00"), day("2026-11-29"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T23:00:00-01:00"), day("2026-11-30"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T22:59:59-01:00"), day("2026-11-29"));
  // Without a zone the instant is unknown: never read as UTC.
  EXPECT_FALSE(utc_date_of_timestamp("2026-11-30T00:00:00"));
  EXPECT_FALSE(utc_date_of_timestamp("2026-11-30T12:00:00.5"));
  // The verdict: exactly max age at midnight is fresh, a second earlier is stale.
  claims::JudgeRules rules;
  rules.today = day("2026-12-14");
  rules.max_age_days = 14;
  auto at = [&](const char* ts) {
    return claims::judge_evidence(test::evidence_of(test::orin_evidence_json(ts)), rules).state;
  };
  EXPECT_EQ(at("2026-11-30T00:00:00Z"), claims::GateState::fresh_green);
  EXPECT_EQ(at("2026-11-30T01:00:00+01:00"), claims::GateState::fresh_green);
  EXPECT_EQ(at("2026-11-30T00:59:59+01:00"), claims::GateState::stale);
}

TEST(PlantedBugClasses, CommitsAndGateIdsMatchWholeNeverByPrefix) {
  claims::JudgeRules rules;
  rules.today = day("2026-11-29");
  const std::string sha = "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39";
  rules.candidate_sha = sha;
  auto with_sha = [&](const std::string& s) {
    return claims::judge_evidence(test::evidence_of(test::orin_evidence_json("2026-11-29T10:00:00Z",
                                                                             {{"git_sha", s}})),
                                  rules)
        .state;
  };
  EXPECT_EQ(with_sha(sha), claims::GateState::fresh_green);
  EXPECT_EQ(with_sha(sha.substr(0, 39) + "0"), claims::GateState::other_commit);
  EXPECT_EQ(with_sha("3f1c2a9d8e7b" + std::string(28, '0')), claims::GateState::other_commit);
  // A gate's evidence is the evidence of exactly that gate id.
  std::vector<claims::LoadedEvidence> files;
  files.push_back(test::loaded(
      "a.json",
      test::orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", "jetson-cuda-runtime-extra"}})));
  files.push_back(test::loaded(
      "b.json", test::orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", "jetson"}})));
  EXPECT_TRUE(
      claims::evidence_of_gate(claims::judge_set(files, rules), "jetson-cuda-runtime").empty());
  files.push_back(test::loaded("c.json", test::orin_evidence_json()));
  auto set = claims::judge_set(files, rules);
  EXPECT_EQ(claims::evidence_of_gate(set, "jetson-cuda-runtime").size(), 1u);
}

std::int64_t skipped_of(const std::string& xml) {
  auto c = gate::parse_junit_xml(xml, "r.xml");
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message());
  return c.ok() ? c->skipped : -1;
}

TEST(PlantedBugClasses, GoogleTestDialectsAreNotPasses) {
  // GoogleTest writes result="suppressed" for a test filtered by a skip list,
  // and disabled="N" on a suite with DISABLED_ tests.
  EXPECT_EQ(skipped_of(R"(<testsuites><testsuite name="s" tests="2">
      <testcase name="a" status="run" result="completed"/>
      <testcase name="b" status="run" result="suppressed"/></testsuite></testsuites>)"),
            1);
  EXPECT_EQ(skipped_of(R"(<testsuites><testsuite name="s" tests="1" disabled="2">
      <testcase name="a" status="run" result="completed"/></testsuite></testsuites>)"),
            2);
  EXPECT_EQ(skipped_of(R"(<testsuites><testsuite name="s" tests="1">
      <testcase name="a" status="notrun"/></testsuite></testsuites>)"),
            1);
  EXPECT_EQ(skipped_of(R"(<testsuites><testsuite name="s" tests="1">
      <testcase name="a" status="run" result="completed"/></testsuite></testsuites>)"),
            0);
  // A report that lists no test never passes.
  auto empty = gate::parse_junit_xml("<testsuites><testsuite name=\"s\" tests=\"0\"/></testsuites>",
                                     "r.xml");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->clean());
}

TEST(PlantedBugClasses, ABoardIdSharedBySeveralSkusNamesNone) {
  const auto& table = facts::builtin_module_table();
  ASSERT_TRUE(table.ok());
  // 3767: Orin NX 16GB/8GB and Orin Nano 8GB/4GB share the board id.
  EXPECT_FALSE(table->only_module_of_board("3767"));
  EXPECT_FALSE(table->only_module_of_board("3701"));
  EXPECT_FALSE(table->only_module_of_board("9999"));
}

TEST(PlantedBugClasses, TheSanitizerHidesShortHostNamesAndThreeCharacterNames) {
  report::SanitizeOptions o;
  o.hostnames = {"build7.example.org"};
  o.users = {"bob"};
  std::string out = report::sanitize("ran on build7 (build7.example.org) as bob", o);
  EXPECT_EQ(out.find("build7"), std::string::npos) << out;
  EXPECT_EQ(out.find("bob"), std::string::npos) << out;
  report::SanitizeOptions three;
  three.hostnames = {"xk9"};
  EXPECT_EQ(report::sanitize("host xk9 ready", three).find("xk9"), std::string::npos);
  // Two characters would mangle the report without hiding anyone: kept.
  report::SanitizeOptions two;
  two.users = {"al"};
  EXPECT_EQ(report::sanitize("al is in the log", two), "al is in the log");
}

}  // namespace
}  // namespace jetgate
