// SPDX-License-Identifier: Apache-2.0
// check = support = summary: a generated corpus of evidence sets (status,
// counts, commit, age, waivers, exceptions, platform facts, facts source,
// dirty trees, missing and corrupt files, a second evidence directory, and
// with or without trusted_keys: evidence unsigned, signed by a trusted key,
// an expired one or an unknown one, edited after signing, or carrying another
// gate's envelope) is judged by all three, and they must agree on every gate
// of every set.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "jetgate/claims/check.hpp"
#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "test_support.hpp"

namespace jetgate::claims {
namespace {

const std::string kCandidate = "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3";
const std::string kOther = "0000000000000000000000000000000000000001";
const std::vector<std::string> kGates = {"cuda-runtime", "jetson-cuda-runtime", "docs-build"};

template <typename T>
const T& pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

bool coin(std::mt19937& rng, double p = 0.5) {
  return std::bernoulli_distribution(p)(rng);
}

nlohmann::json random_platform(std::mt19937& rng) {
  if (coin(rng, 0.5))
    return {{"arch", "aarch64"},
            {"tegra",
             {{"is_tegra", true},
              {"l4t", pick(rng, std::vector<std::string>{"36.4.3", "35.6.1"})},
              {"jetpack", "6.2"},
              {"module", pick(rng, std::vector<std::string>{"Jetson AGX Orin 64GB",
                                                            "Jetson Orin NX 16GB"})}}},
            {"cuda", {{"toolkit_version", "12.6.68"}}}};
  return {{"arch", "x86_64"},
          {"nvidia_driver", {{"version", "580.159.04"}}},
          {"cuda", {{"toolkit_version", "13.0.1"}}}};
}

// One evidence document with every field drawn at random; today is 2026-11-29.
nlohmann::json random_evidence(std::mt19937& rng, const std::string& gate) {
  nlohmann::json j = {{"schema_version", 1}, {"gate", gate}};
  j["status"] =
      pick(rng, std::vector<std::string>{"passed", "passed", "passed", "failed", "not_run"});
  j["git_sha"] = pick(rng, std::vector<std::string>{kCandidate, kCandidate, kOther, "local"});
  const std::vector<std::string> dates = {"2026-11-29T10:00:00Z", "2026-11-28T23:59:59Z",
                                          "2026-11-15T00:00:00Z", "2026-11-14T23:59:59Z",
                                          "2026-11-30T00:00:01Z", "2026-11-30T01:00:00+02:00",
                                          "2026-10-01T12:00:00Z", "2026-11-29T08:00:00.5+00:00"};
  j["generated_at"] = pick(rng, dates);
  j["reason"] = coin(rng) ? "" : "pytest exit 1: 2 failures";
  j["exit_code"] = pick(rng, std::vector<nlohmann::json>{0, 0, 1, nullptr});
  j["counts"] = {{"tests", pick(rng, std::vector<int>{0, 3, 3, 12})},
                 {"failures", pick(rng, std::vector<int>{0, 0, 0, 1})},
                 {"errors", pick(rng, std::vector<int>{0, 0, 0, 2})},
                 {"skipped", pick(rng, std::vector<int>{0, 0, 0, 1})}};
  if (coin(rng, 0.8)) {  // jetgate's evidence (OBLITERATUS' records no facts)
    j["jetgate"] = {{"version", "0.2.0"}};
    j["platform"] = random_platform(rng);
    j["gpu"] = {{"device_count", 1}, {"devices", {{{"name", "NVIDIA H200"}}}}};
    auto source = pick(rng, std::vector<std::string>{"live", "live", "live", "recorded", ""});
    if (!source.empty()) j["facts_source"] = source;
  }
  // The policy's gates name the launch probe: its result, or (incomplete) none.
  if (coin(rng, 0.9)) j["probes"] = {{"launch", {{"status", "PASS"}}}};
  // A tree shown clean, dirty, not shown (null: git could not answer) or not recorded.
  const double d = std::uniform_real_distribution<double>(0, 1)(rng);
  if (d < 0.7)
    j["dirty"] = false;
  else if (d < 0.85)
    j["dirty"] = true;
  else if (d < 0.95)
    j["dirty"] = nullptr;
  return j;
}

std::string random_waivers(std::mt19937& rng) {
  nlohmann::json w = nlohmann::json::array();
  for (const auto& g : kGates) {
    if (!coin(rng, 0.2)) continue;
    w.push_back({{"gate", g},
                 {"reason", "runner down"},
                 {"issue", "https://github.com/acme/robot/issues/3"},
                 {"opened", "2026-11-20"},
                 {"expires", pick(rng, std::vector<std::string>{"2026-11-29", "2026-11-28"})},
                 {"blocked_claim", "support"}});
  }
  return w.dump();
}

trust::SigningKey key_from(char c) {
  std::array<unsigned char, 32> seed{};
  seed.fill(static_cast<unsigned char>(c));
  return trust::SigningKey::from_seed(seed);
}

const trust::SigningKey& trusted_key() {
  static const auto k = key_from('t');
  return k;
}
const trust::SigningKey& expired_key() {
  static const auto k = key_from('e');
  return k;
}
const trust::SigningKey& unknown_key() {
  static const auto k = key_from('u');
  return k;
}

std::string trusted_keys_json() {
  auto entry = [](const trust::SigningKey& k) {
    return nlohmann::json{{"key_id", k.key_id()},
                          {"public_key", trust::to_base64(k.public_key())},
                          {"owner", "runner"}};
  };
  auto expired = entry(expired_key());
  expired["expires"] = "2026-11-01";
  return nlohmann::json::array({entry(trusted_key()), expired}).dump();
}

// GATE.dsse.json beside the evidence: none, or signed in one of the ways a
// real directory can hold (by the runner's key, an expired or unknown key,
// over the evidence as written, an edited copy or another gate's evidence).
void write_envelope(std::mt19937& rng, const test::TempDir& t, const std::string& rel_dir,
                    const std::string& gate, nlohmann::json& doc) {
  double roll = std::uniform_real_distribution<double>(0, 1)(rng);
  if (roll < 0.25) return;  // unsigned
  const trust::SigningKey* key = &trusted_key();
  nlohmann::json signed_doc = doc;
  if (roll < 0.6) {
  } else if (roll < 0.7) {
    key = &expired_key();
  } else if (roll < 0.8) {
    key = &unknown_key();
  } else if (roll < 0.9) {
    doc["status"] = "passed";  // edited after signing (may be unchanged: then it still verifies)
    doc["counts"]["failures"] = 0;
  } else {
    signed_doc["gate"] = gate == kGates[0] ? kGates[1] : kGates[0];  // another gate's envelope
  }
  auto sha = doc["git_sha"].get<std::string>();
  auto env = trust::sign_statement(trust::make_statement("acme/robot", sha, signed_doc), *key);
  t.write(rel_dir + "/" + trust::envelope_name(gate), env.dump());
}

struct Corpus {
  test::TempDir t;
  ClaimOptions options;
  std::vector<std::string> required;

  Corpus(std::mt19937& rng, int n) {
    std::filesystem::create_directories(t.path(".git"));
    std::string gates;
    for (const auto& g : kGates)
      gates += (gates.empty() ? "" : ",") + std::string(R"({"id": ")") + g +
               R"(", "probes": [{"probe": "launch", "status": "PASS"}]})";
    // Drawn in order (the operands of + are unsequenced).
    const std::string waivers = random_waivers(rng);
    const std::string trusted =
        coin(rng) ? ", \"trusted_keys\": " + trusted_keys_json() : std::string();
    options.policy =
        t.write("ci/policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
        "evidence_retention_days": 90, "maximum_evidence_age_days": 14, "repository": "acme/robot",
        "gates": [)" + gates +
                                      "], \"environment_waivers\": " + waivers + trusted + "}");
    std::string dir = "set" + std::to_string(n);
    options.evidence_dirs = {t.path(dir + "/a")};
    std::filesystem::create_directories(options.evidence_dirs[0]);
    if (coin(rng, 0.3)) {
      options.evidence_dirs.push_back(t.path(dir + "/b"));
      std::filesystem::create_directories(options.evidence_dirs[1]);
    }
    for (const auto& ev_dir : options.evidence_dirs)
      for (const auto& g : kGates) {
        double roll = std::uniform_real_distribution<double>(0, 1)(rng);
        std::string rel = ev_dir.substr(t.dir().size() + 1) + "/" + g + ".json";
        if (roll < 0.1) continue;  // missing
        if (roll < 0.15) {
          t.write(rel, "{\"schema_version\": 1, \"gate\": ");  // corrupt
          continue;
        }
        auto doc = random_evidence(rng, g);
        write_envelope(rng, t, ev_dir.substr(t.dir().size() + 1), g, doc);
        t.write(rel, doc.dump());
      }
    options.candidate_sha = coin(rng, 0.8) ? kCandidate : "";
    options.today = "2026-11-29";
    if (coin(rng, 0.15)) {
      options.stale_reason = "runner down";
      options.stale_issue = "https://github.com/acme/robot/issues/9";
      options.stale_expires = pick(rng, std::vector<std::string>{"2026-12-20", "2027-02-01"});
    }
    if (coin(rng, 0.2)) required = {pick(rng, kGates)};
  }
};

TEST(VerdictAgreement, CheckSupportAndSummaryAgreeOnFiveHundredGeneratedEvidenceSets) {
  std::mt19937 rng(20261130);
  std::map<std::string, int> states_seen;
  int judged = 0, green_with_trusted_keys = 0;
  for (int n = 0; n < 500; ++n) {
    Corpus c(rng, n);
    auto in = resolve_claim_inputs(c.options);
    ASSERT_TRUE(in.ok()) << in.error().message();
    auto checked = check_claim(*in, c.required);
    auto summary = build_gate_summary(*in);
    auto matrix = build_support_matrix(in->evidence);
    auto claims = supported_claims(matrix);
    bool all_required_green = true;
    for (const auto& row : checked.gates) {
      const auto* s_row = [&]() -> const SummaryRow* {
        for (const auto& r : summary.rows)
          if (r.gate == row.gate) return &r;
        return nullptr;
      }();
      ASSERT_NE(s_row, nullptr) << row.gate;
      if (!row.decision) continue;  // not required (waived, or another gate was asked for)
      ++judged;
      const auto& verdict = row.decision->verdict;
      states_seen[to_string(verdict.state)]++;
      if (in->rules.signatures_required && backs_claim(verdict)) ++green_with_trusted_keys;
      all_required_green = all_required_green && backs_claim(verdict);
      // summary: the same state, from the same file.
      EXPECT_EQ(to_string(s_row->decision.verdict.state), to_string(verdict.state))
          << "set " << n << " " << row.gate;
      EXPECT_EQ(s_row->decision.file, row.decision->file) << "set " << n;
      EXPECT_EQ(row.state == "holds", backs_claim(s_row->decision.verdict)) << "set " << n;
      // support: the deciding file is decided the same on its platform, and claimed exactly when
      // green.
      if (!row.decision->evidence) continue;
      const auto& key = *row.decision->evidence->platform;
      bool found = false;
      for (const auto& m_row : matrix.rows) {
        if (!(m_row.key == key)) continue;
        for (const auto& g : m_row.gates) {
          if (g.gate != row.gate) continue;
          found = true;
          EXPECT_EQ(g.file, row.decision->file) << "set " << n;
          EXPECT_EQ(to_string(g.verdict.state), to_string(verdict.state))
              << "set " << n << " " << row.gate;
        }
      }
      EXPECT_TRUE(found) << "set " << n << " " << row.gate;
      bool claimed = false;
      for (const auto& cl : claims)
        claimed = claimed ||
                  (cl.gate == row.gate && cl.platform == key.platform && cl.runtime == key.runtime);
      EXPECT_EQ(claimed, backs_claim(verdict) && key.identified) << "set " << n << " " << row.gate;
    }
    bool policy_clean = in->policy->issues.empty() && in->stale_exception_problems.empty();
    if (policy_clean) {
      auto waivers = policy::review_waivers(in->policy->policy, in->rules.today);
      if (waivers.issues.empty()) {
        EXPECT_EQ(checked.holds(), all_required_green) << "set " << n;
      }
    }
  }
  // The corpus must reach every verdict, or it proves less than it claims.
  for (const char* st : {"fresh_green", "failed", "not_run", "inconsistent", "not_live", "dirty",
                         "no_commit", "other_commit", "future_dated", "stale", "missing",
                         "unreadable", "untrusted", "not_shown_clean", "incomplete"})
    EXPECT_GT(states_seen[st], 0) << st << " never generated";
  EXPECT_GT(judged, 800);
  // Signed evidence must reach green too, or "untrusted" could be all the corpus proves.
  EXPECT_GE(green_with_trusted_keys, 5);
}

}  // namespace
}  // namespace jetgate::claims
