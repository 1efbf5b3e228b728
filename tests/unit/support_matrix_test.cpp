// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/support_matrix.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/gate_decision.hpp"
#include "jetgate/claims/platform_key.hpp"
#include "jetgate/report/support_markdown.hpp"
#include "test_support.hpp"

namespace jetgate::claims {
namespace {

using test::evidence_of;
using test::loaded;
using test::orin_evidence_json;

Date day(const char* text) {
  return *evidence::parse_iso_date(text);
}

GateVerdict judge(const nlohmann::json& j, const char* today = "2026-11-29", int max_age = 14) {
  return judge_evidence(evidence_of(j), JudgeRules{day(today), max_age, "", false});
}

TEST(ClaimsFreshness, ExactlyMaxAgeOldIsFreshOneDayMoreIsStale) {
  auto at_boundary = judge(orin_evidence_json("2026-11-15T23:59:59Z"));
  EXPECT_EQ(at_boundary.state, GateState::fresh_green);
  EXPECT_EQ(at_boundary.age_days, 14);
  auto past = judge(orin_evidence_json("2026-11-14T00:00:00Z"));
  EXPECT_EQ(past.state, GateState::stale);
  EXPECT_EQ(past.age_days, 15);
  EXPECT_NE(past.detail.find("15 days old"), std::string::npos) << past.detail;
}

TEST(ClaimsFreshness, MaxAgeZeroAcceptsOnlyToday) {
  EXPECT_EQ(judge(orin_evidence_json("2026-11-29T00:00:00Z"), "2026-11-29", 0).state,
            GateState::fresh_green);
  EXPECT_EQ(judge(orin_evidence_json("2026-11-28T23:59:59Z"), "2026-11-29", 0).state,
            GateState::stale);
}

TEST(ClaimsFreshness, TomorrowIsFutureDatedButAnOffsetIsConvertedToUtcFirst) {
  EXPECT_EQ(judge(orin_evidence_json("2026-11-30T00:00:00Z")).state, GateState::future_dated);
  // 01:00 at +02:00 is 23:00 UTC the day before: today, not the future.
  auto shifted = judge(orin_evidence_json("2026-11-30T01:00:00+02:00"));
  EXPECT_EQ(shifted.state, GateState::fresh_green);
  EXPECT_EQ(shifted.evidence_date, "2026-11-29");
}

TEST(ClaimsFreshness, TimestampsOrderWithinADayAndHonourOffsets) {
  auto a = parse_timestamp("2026-11-29T16:23:05Z");
  auto b = parse_timestamp("2026-11-29T17:23:05.5+01:00");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_FALSE(parse_timestamp("2026-11-29T16:23:05"));  // no zone
  EXPECT_FALSE(parse_timestamp("2026-11-29"));
  EXPECT_FALSE(parse_timestamp(""));
  EXPECT_TRUE(today_from_option("2026-02-28"));
  EXPECT_FALSE(today_from_option("2026-02-30"));
  EXPECT_FALSE(today_from_option("29.11.2026"));
}

TEST(ClaimsVerdict, PassedWithInconsistentCountsIsRejected) {
  auto with_counts = [](int tests, int failures, int errors, int skipped) {
    return orin_evidence_json(
        "2026-11-29T16:23:05Z",
        {{"counts",
          {{"tests", tests}, {"failures", failures}, {"errors", errors}, {"skipped", skipped}}}});
  };
  EXPECT_EQ(judge(with_counts(0, 0, 0, 0)).state, GateState::inconsistent);
  EXPECT_EQ(judge(with_counts(5, 1, 0, 0)).state, GateState::inconsistent);
  EXPECT_EQ(judge(with_counts(5, 0, 1, 0)).state, GateState::inconsistent);
  auto skipped = judge(with_counts(5, 0, 0, 1));
  EXPECT_EQ(skipped.state, GateState::inconsistent);
  EXPECT_NE(skipped.detail.find("without skips"), std::string::npos);
  EXPECT_EQ(judge(orin_evidence_json("2026-11-29T16:23:05Z", {{"exit_code", 1}})).state,
            GateState::inconsistent);
  EXPECT_EQ(judge(with_counts(1, 0, 0, 0)).state, GateState::fresh_green);
}

TEST(ClaimsVerdict, FailedAndNotRunKeepTheirReason) {
  auto failed = judge(
      orin_evidence_json("2026-11-29T16:23:05Z", {{"status", "failed"}, {"reason", "2 failures"}}));
  EXPECT_EQ(failed.state, GateState::failed);
  EXPECT_EQ(failed.detail, "the gate failed: 2 failures");
  EXPECT_EQ(judge(orin_evidence_json("2026-11-29T16:23:05Z", {{"status", "not_run"}})).state,
            GateState::not_run);
}

TEST(ClaimsPlatformKey, JetsonKeyNamesModuleJetpackL4tCudaAndTorch) {
  auto k = platform_key(evidence_of(orin_evidence_json()));
  EXPECT_TRUE(k.identified);
  EXPECT_EQ(k.platform, "Jetson AGX Orin 64GB");
  EXPECT_EQ(k.runtime, "JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08");
}

TEST(ClaimsPlatformKey, TorchBuiltForAnotherCudaIsNamedAndAbsentTorchIsLeftOut) {
  auto other = platform_key(evidence_of(orin_evidence_json(
      "2026-11-29T16:23:05Z", {{"python", {{"torch", {{"cuda_version", "12.4"}}}}}})));
  EXPECT_EQ(other.runtime,
            "JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08 (CUDA 12.4)");
  auto none =
      platform_key(evidence_of(orin_evidence_json("2026-11-29T16:23:05Z", {{"python", nullptr}})));
  EXPECT_EQ(none.runtime, "JetPack 6.2 (L4T 36.4.3), CUDA 12.6");
}

TEST(ClaimsPlatformKey, ModuleFallsBackToModelAndPartNumber) {
  auto k = platform_key(evidence_of(orin_evidence_json(
      "2026-11-29T16:23:05Z",
      {{"platform", {{"tegra", {{"module", nullptr}, {"jetpack", nullptr}}}}}})));
  EXPECT_EQ(k.platform, "NVIDIA Jetson AGX Orin Developer Kit (p3701-0005)");
  EXPECT_EQ(k.runtime.substr(0, 31), "JetPack unknown (L4T 36.4.3), C");
  EXPECT_TRUE(k.identified);
}

TEST(ClaimsPlatformKey, JetsonWithoutL4tIsNotIdentified) {
  auto k = platform_key(evidence_of(
      orin_evidence_json("2026-11-29T16:23:05Z", {{"platform", {{"tegra", {{"l4t", nullptr}}}}}})));
  EXPECT_FALSE(k.identified);
  EXPECT_FALSE(k.missing.empty());
}

TEST(ClaimsPlatformKey, HostKeyNamesGpuArchDriverCuda) {
  nlohmann::json j = orin_evidence_json();
  j["platform"] = {{"arch", "x86_64"},
                   {"tegra", {{"is_tegra", false}}},
                   {"cuda", {{"toolkit_version", "13.0.2"}}},
                   {"nvidia_driver", {{"version", "580.159.04"}}}};
  j["gpu"]["devices"] = {{{"name", "NVIDIA H200"}}, {{"name", "NVIDIA H200"}}};
  j["python"]["torch"] = {{"version", "2.11.0+cu130"}, {"cuda_version", "13.0"}};
  auto k = platform_key(evidence_of(j));
  EXPECT_TRUE(k.identified);
  EXPECT_EQ(k.platform, "2x NVIDIA H200 (x86_64)");
  EXPECT_EQ(k.runtime, "driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130");
}

TEST(ClaimsPlatformKey, ObliteratusEvidenceAndMistypedBlocksNeverCrashAndNeverIdentify) {
  nlohmann::json bare = {
      {"schema_version", 1}, {"gate", "g"},
      {"status", "passed"},  {"generated_at", "2026-11-29T16:23:05.123456+00:00"},
      {"git_sha", "local"},  {"counts", {{"tests", 1}}}};
  EXPECT_FALSE(platform_key(evidence_of(bare)).identified);
  for (const nlohmann::json& odd :
       {nlohmann::json{{"platform", "aarch64"}}, nlohmann::json{{"platform", {{"tegra", {1, 2}}}}},
        nlohmann::json{{"gpu", {{"devices", "Orin"}}}},
        nlohmann::json{{"gpu", {{"devices", {1, nullptr, {{"name", 7}}}}}}},
        nlohmann::json{{"platform", {{"tegra", {{"is_tegra", "yes"}, {"l4t", 36}}}}}}}) {
    nlohmann::json j = bare;
    j.update(odd);
    auto k = platform_key(evidence_of(j));
    EXPECT_FALSE(k.identified) << odd.dump();
    EXPECT_FALSE(k.platform.empty());
  }
}

TEST(ClaimsPlatformKey, CudaMajorMinor) {
  EXPECT_EQ(cuda_major_minor("12.6.68"), "12.6");
  EXPECT_EQ(cuda_major_minor("12.6"), "12.6");
  EXPECT_EQ(cuda_major_minor("13"), "13");
  EXPECT_EQ(cuda_major_minor(""), "");
}

// The matrix points into its evidence set, so each set lives as long as the test binary.
const EvidenceSet& set_of(std::vector<LoadedEvidence> v, const JudgeRules& rules) {
  static std::deque<EvidenceSet> kept;
  return kept.emplace_back(judge_set(std::move(v), rules));
}

TEST(ClaimsMatrix, NewestEvidenceDecidesSoANewerFailureWithdrawsSupport) {
  // One board and lane (its runs merged from several artefact directories).
  const nlohmann::json lane = {{"node", "orin-1"}, {"kind", "native"}};
  auto green = orin_evidence_json("2026-11-28T10:00:00Z", {{"lane", lane}});
  auto red = orin_evidence_json("2026-11-29T10:00:00Z",
                                {{"status", "failed"}, {"reason", "oom"}, {"lane", lane}});
  auto m = build_support_matrix(set_of({loaded("a/green.json", green), loaded("b/red.json", red)},
                                       JudgeRules{day("2026-11-29"), 14, "", false}));
  ASSERT_EQ(m.rows.size(), 1u);
  ASSERT_EQ(m.rows[0].gates.size(), 1u);
  EXPECT_EQ(m.rows[0].gates[0].verdict.state, GateState::failed);
  EXPECT_EQ(m.rows[0].gates[0].file, "b/red.json");
  EXPECT_EQ(m.rows[0].gates[0].evidence_files, 2);
  EXPECT_TRUE(supported_claims(m).empty());

  auto newer_green = orin_evidence_json("2026-11-29T11:00:00Z", {{"lane", lane}});
  m = build_support_matrix(set_of({loaded("b/red.json", red), loaded("c/green.json", newer_green)},
                                  JudgeRules{day("2026-11-29"), 14, "", false}));
  EXPECT_EQ(m.rows[0].gates[0].verdict.state, GateState::fresh_green);
  ASSERT_EQ(supported_claims(m).size(), 1u);
}

// A board matrix: the same gate on two boards. Each board's newest evidence
// decides there, and the gate as a whole (check, summary) is the worst board,
// so a newer green run on one board never hides an older failure on another.
TEST(ClaimsMatrix, EachPlatformIsJudgedOnItsOwnAndTheWorstDecidesTheGate) {
  const nlohmann::json nano = {{"platform",
                                {{"tegra",
                                  {{"model", "NVIDIA Jetson Orin Nano Developer Kit"},
                                   {"part_number", "p3767-0003"},
                                   {"module", "Jetson Orin Nano 8GB"}}}}}};
  auto agx_green = orin_evidence_json("2026-11-29T11:00:00Z");
  auto nano_red = orin_evidence_json("2026-11-29T10:00:00Z", nano);
  nano_red["status"] = "failed";
  auto nano_old_green = orin_evidence_json("2026-11-28T10:00:00Z", nano);
  // A copy: GCC 13's -Wdangling-reference cannot see that set_of returns a reference
  // into a static deque, and JetPack 7 builds with GCC 13.
  const JudgeRules rules{day("2026-11-29"), 14, "", false};
  const EvidenceSet set = set_of({loaded("agx/jetson-cuda-runtime.json", agx_green),
                                  loaded("nano/jetson-cuda-runtime.json", nano_red),
                                  loaded("nano-old/jetson-cuda-runtime.json", nano_old_green)},
                                 rules);
  auto entry = decide_gate(set, "jetson-cuda-runtime");
  EXPECT_EQ(entry.verdict.state, GateState::failed);
  EXPECT_EQ(entry.file, "nano/jetson-cuda-runtime.json");
  EXPECT_EQ(entry.evidence_files, 3);
  auto m = build_support_matrix(set);
  ASSERT_EQ(m.rows.size(), 2u);
  auto claims = supported_claims(m);
  ASSERT_EQ(claims.size(), 1u);
  EXPECT_EQ(claims[0].platform, "Jetson AGX Orin 64GB");

  // Both boards green: the gate holds, decided by the newest.
  nano_red["status"] = "passed";
  const EvidenceSet all_green = set_of({loaded("agx/jetson-cuda-runtime.json", agx_green),
                                        loaded("nano/jetson-cuda-runtime.json", nano_red)},
                                       rules);
  entry = decide_gate(all_green, "jetson-cuda-runtime");
  EXPECT_EQ(entry.verdict.state, GateState::fresh_green);
  EXPECT_EQ(entry.file, "agx/jetson-cuda-runtime.json");
  EXPECT_EQ(supported_claims(build_support_matrix(all_green)).size(), 2u);
}

TEST(ClaimsMatrix, AtTheSameInstantRedBeatsGreen) {
  auto green = orin_evidence_json("2026-11-29T10:00:00Z");
  auto red = orin_evidence_json("2026-11-29T11:00:00+01:00", {{"status", "failed"}});
  for (bool red_first : {true, false}) {
    auto v = red_first ? std::vector{loaded("x.json", red), loaded("y.json", green)}
                       : std::vector{loaded("x.json", green), loaded("y.json", red)};
    auto m = build_support_matrix(set_of(v, JudgeRules{day("2026-11-29"), 14, "", false}));
    EXPECT_EQ(m.rows[0].gates[0].verdict.state, GateState::failed);
  }
}

TEST(ClaimsMatrix, RowsAreKeyedByCombinationAndSorted) {
  auto orin62 = orin_evidence_json();
  auto orin61 = orin_evidence_json(
      "2026-11-29T10:00:00Z", {{"gate", "cuda-runtime"},
                               {"platform", {{"tegra", {{"l4t", "36.4.0"}, {"jetpack", "6.1"}}}}}});
  auto second_gate = orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", "cuda-runtime"}});
  auto m = build_support_matrix(
      set_of({loaded("1.json", orin62), loaded("2.json", orin61), loaded("3.json", second_gate)},
             JudgeRules{day("2026-11-29"), 14, "", false}));
  ASSERT_EQ(m.rows.size(), 2u);
  EXPECT_EQ(m.rows[0].key.runtime.substr(0, 11), "JetPack 6.1");
  EXPECT_EQ(m.rows[1].supported_gates(),
            (std::vector<std::string>{"cuda-runtime", "jetson-cuda-runtime"}));
  auto claims = supported_claims(m);
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0],
            (Claim{"Jetson AGX Orin 64GB", m.rows[0].key.runtime, "cuda-runtime", "2026-11-29"}));
}

TEST(ClaimsMatrix, UnidentifiedPlatformsNeverBackAClaim) {
  nlohmann::json bare = {{"schema_version", 1},
                         {"gate", "jetson-cuda-runtime"},
                         {"status", "passed"},
                         {"generated_at", "2026-11-29T16:23:05.123456+00:00"},
                         {"git_sha", "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"},
                         {"counts", {{"tests", 9}}}};
  auto m = build_support_matrix(
      set_of({loaded("o.json", bare)}, JudgeRules{day("2026-11-29"), 14, "", false}));
  ASSERT_EQ(m.rows.size(), 1u);
  EXPECT_EQ(m.rows[0].gates[0].verdict.state, GateState::fresh_green);
  EXPECT_TRUE(m.rows[0].supported_gates().empty());
  EXPECT_TRUE(supported_claims(m).empty());
}

TEST(ClaimsMatrix, JsonNamesStatesAgesAndSkippedFiles) {
  EvidenceSet set = set_of({loaded("a.json", orin_evidence_json("2026-11-20T00:00:00Z"))},
                           JudgeRules{day("2026-11-29"), 7, "", false});
  set.skipped.push_back({"bad.json", "bad.json: not valid JSON", ""});
  auto j = to_json(build_support_matrix(set));
  EXPECT_EQ(j["max_age_days"], 7);
  EXPECT_EQ(j["today"], "2026-11-29");
  EXPECT_EQ(j["rows"][0]["gates"][0]["state"], "stale");
  EXPECT_EQ(j["rows"][0]["gates"][0]["age_days"], 9);
  EXPECT_TRUE(j["rows"][0]["supported_gates"].empty());
  EXPECT_EQ(j["skipped"][0]["file"], "bad.json");
}

TEST(ClaimsEvidenceSet, ReadsFixturesAndSkipsWhatIsNotEvidence) {
  std::string dir = test::fixtures_dir() + "/claims/troubles";
  auto set = load_evidence_dirs({dir}, JudgeRules{day("2026-11-29"), 14, "", false});
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(set->loaded.size(), 4u);   // stale, failed, future, skipped
  EXPECT_EQ(set->skipped.size(), 4u);  // truncated, empty, binary, a policy
  for (const auto& s : set->skipped) EXPECT_NE(s.why.find(s.file), std::string::npos) << s.why;
  auto m = build_support_matrix(*set);
  ASSERT_EQ(m.rows.size(), 1u);
  std::map<std::string, GateState> states;
  for (const auto& g : m.rows[0].gates) states[g.gate] = g.verdict.state;
  EXPECT_EQ(states["jetson-cuda-runtime"], GateState::stale);
  EXPECT_EQ(states["cuda-runtime"], GateState::failed);
  EXPECT_EQ(states["bitsandbytes-runtime"], GateState::future_dated);
  EXPECT_EQ(states["memory-pressure"], GateState::inconsistent);
}

TEST(ClaimsVerdict, LocalEvidenceNeverBacksAClaim) {
  auto v = judge(orin_evidence_json("2026-11-29T10:00:00Z", {{"git_sha", "local"}}));
  EXPECT_EQ(v.state, GateState::no_commit);
  EXPECT_FALSE(backs_claim(v));
  EXPECT_NE(v.detail.find("names no commit (git_sha \"local\")"), std::string::npos) << v.detail;
  auto m = build_support_matrix(
      set_of({loaded("e/jetson-cuda-runtime.json",
                     orin_evidence_json("2026-11-29T10:00:00Z", {{"git_sha", "local"}}))},
             JudgeRules{day("2026-11-29"), 14, "", false}));
  EXPECT_TRUE(supported_claims(m).empty());
  EXPECT_NE(report::render_support_markdown(m).find("no commit recorded (git_sha is not a commit)"),
            std::string::npos);
}

TEST(ClaimsEvidenceSet, OnlyGateDotJsonCountsForItsGate) {
  test::TempDir t;
  auto green = orin_evidence_json("2026-11-29T10:00:00Z");
  t.write("copy-of-green.json", green.dump());
  t.write("cuda-runtime.json",
          orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", "cuda-runtime"}}).dump());
  auto set = load_evidence_dirs({t.dir()}, JudgeRules{day("2026-11-29"), 14, "", false});
  ASSERT_TRUE(set) << set.error().message();
  ASSERT_EQ(set->loaded.size(), 1u);
  EXPECT_EQ(set->loaded[0].evidence.gate, "cuda-runtime");
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_NE(set->skipped[0].why.find("copy-of-green.json"), std::string::npos)
      << set->skipped[0].why;
  EXPECT_NE(set->skipped[0].why.find("(DIR/GATE.json)"), std::string::npos) << set->skipped[0].why;
}

TEST(ClaimsEvidenceSet, MissingDirectoryIsUnusableInput) {
  auto set = load_evidence_dirs({test::fixtures_dir() + "/claims/no-such-dir"}, JudgeRules{});
  ASSERT_FALSE(set);
  EXPECT_NE(set.error().message().find("no-such-dir"), std::string::npos);
  test::TempDir t;
  auto file = t.write("plain.json", "{}");
  EXPECT_FALSE(load_evidence_dirs({file}, JudgeRules{}));
  auto empty = load_evidence_dirs({t.dir() + "/"}, JudgeRules{});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->skipped.size(), 1u);
}

}  // namespace
}  // namespace jetgate::claims
