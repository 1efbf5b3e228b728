// SPDX-License-Identifier: Apache-2.0
// requires.jetpack, module, soc and power_mode against the facts of recorded
// boards (the goldens of tests/fixtures/*/expected.json), and the policy keys
// that name them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/policy/policy.hpp"
#include "jetgate/policy/requirements.hpp"
#include "test_support.hpp"

namespace jetgate::policy {
// The policy model these tests build gates from.
namespace {

nlohmann::json platform_of(const std::string& fixture) {
  auto doc = nlohmann::json::parse(
      test::read_file(test::fixtures_dir() + "/" + fixture + "/expected.json"));
  return doc["platform"];
}

Requirements requires_of(const std::string& json) {
  auto p = parse_policy(
      R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
      "maximum_evidence_age_days": 9, "gates": [{"id": "g", "probes": [{"probe": "launch", "status": "PASS"}], "requires": )" +
          json + "}]}",
      "p.json", ".");
  EXPECT_TRUE(p.ok());
  EXPECT_TRUE(p->issues.empty()) << (p->issues.empty() ? "" : p->issues[0].line());
  return p->policy.gates.at(0).requirements;
}

bool met(const std::string& json, const std::string& fixture) {
  auto outcomes = evaluate_requirements(requires_of(json), platform_of(fixture), nullptr);
  EXPECT_EQ(outcomes.size(), 1u);
  return all_met(outcomes);
}

TEST(RequirementsFacts, PowerModeByNameOrIdOnABoardIn15W) {
  // The Orin Nano Super recorded in its 15W mode (mode id 0; MAXN_SUPER is 2).
  EXPECT_TRUE(met(R"({"power_mode": "15W"})", "orin-nano-super-jp62-15w"));
  EXPECT_TRUE(met(R"({"power_mode": ["MAXN_SUPER", "0"]})", "orin-nano-super-jp62-15w"));
  EXPECT_FALSE(met(R"({"power_mode": "MAXN_SUPER"})", "orin-nano-super-jp62-15w"));
  auto why = evaluate_requirements(requires_of(R"({"power_mode": "MAXN_SUPER"})"),
                                   platform_of("orin-nano-super-jp62-15w"), nullptr);
  EXPECT_EQ(why[0].why, "nvpmodel mode is 15W (id 0)");
  // No nvpmodel facts (an x86 host): unknown never meets a requirement.
  EXPECT_FALSE(met(R"({"power_mode": "MAXN"})", "x86-h200-dgpu"));
}

TEST(RequirementsFacts, ModuleByNameOrPartNumberAndSoc) {
  EXPECT_TRUE(met(R"({"module": "p3701-0005"})", "agx-orin-64gb-jp62"));
  EXPECT_TRUE(met(R"({"module": "P3701-0005"})", "agx-orin-64gb-jp62"));
  EXPECT_TRUE(met(R"({"module": ["Jetson AGX Orin 64GB", "p3767-0000"]})", "agx-orin-64gb-jp62"));
  EXPECT_FALSE(met(R"({"module": "p3701-0004"})", "agx-orin-64gb-jp62"));
  // A carrier board number is not the module.
  EXPECT_FALSE(met(R"({"module": "p3737-0000"})", "agx-orin-64gb-jp62"));
  EXPECT_TRUE(met(R"({"soc": "tegra234"})", "agx-orin-64gb-jp62"));
  EXPECT_FALSE(met(R"({"soc": ["tegra194", "tegra264"]})", "agx-orin-64gb-jp62"));
  EXPECT_FALSE(met(R"({"soc": "tegra234"})", "rpi5-arm64"));
}

TEST(RequirementsFacts, JetpackRangesOnRecordedReleases) {
  EXPECT_TRUE(met(R"({"jetpack": {"min": "6.0"}})", "agx-orin-64gb-jp62"));
  EXPECT_TRUE(met(R"({"jetpack": {"min": "6.2", "max": "6.2"}})", "agx-orin-64gb-jp62"));
  EXPECT_FALSE(met(R"({"jetpack": {"min": "7.0"}})", "agx-orin-64gb-jp62"));
  EXPECT_FALSE(met(R"({"jetpack": {"max": "5"}})", "agx-orin-64gb-jp62"));
  EXPECT_TRUE(met(R"({"jetpack": {"max": "4.6"}})", "xavier-nx-jp46"));
  // No L4T release, so no JetPack: a mainline-kernel bring-up never meets it.
  EXPECT_FALSE(met(R"({"jetpack": {}})", "talos-orin-nx-mainline"));
}

TEST(RequirementsFacts, MisspeltOrMistypedKeysAreErrors) {
  auto p = parse_policy(
      R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
      "maximum_evidence_age_days": 9, "gates": [{"id": "g", "probes": [{"probe": "launch", "status": "PASS"}],
      "requires": {"modul": "p3701-0005", "soc": 234, "jetpack": "6.2", "power_mode": []}}]})",
      "p.json", ".");
  ASSERT_TRUE(p.ok());
  std::string all;
  for (const auto& i : p->issues) all += i.line() + "\n";
  EXPECT_NE(all.find("unknown key \"modul\" (did you mean \"module\"?)"), std::string::npos) << all;
  EXPECT_NE(all.find("requires.soc must be a string or a non-empty list of strings"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("requires.jetpack must be an object"), std::string::npos) << all;
  EXPECT_NE(all.find("requires.power_mode must be a string or a non-empty list"), std::string::npos)
      << all;
}

}  // namespace
}  // namespace jetgate::policy
