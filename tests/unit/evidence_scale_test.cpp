// SPDX-License-Identifier: Apache-2.0
// Issue 23 ("Scale"): the fast path that reads 100k evidence files must judge
// them exactly as the slow path did. simdjson's parse (core/fast_json.hpp)
// gives parse_json_text's values and errors on every JSON file in the tree and
// on hostile inputs; the loader gives the same set on 1 and on 8 threads; a
// signature checked over the bytes already read is the one checked by
// reading the file again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "jetgate/trust/verify.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

namespace stdfs = std::filesystem;

// Every .json file under tests/ and docs/ (fixtures, goldens, examples, fuzz corpora).
std::vector<std::string> json_files_in_tree() {
  std::vector<std::string> out;
  for (const char* top : {"tests", "docs"}) {
    stdfs::path root = stdfs::path(JETGATE_SOURCE_DIR) / top;
    for (const auto& entry : stdfs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      const auto& p = entry.path();
      if (p.extension() == ".json" ||
          p.parent_path().string().find("/corpus/") != std::string::npos)
        if (entry.file_size() < (8u << 20)) out.push_back(p.string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Same outcome: the same value (serialised alike, equal as JSON), or the same error.
void expect_same_parse(std::string_view text, const std::string& what) {
  auto slow = parse_json_text(text, "f.json");
  auto fast = parse_json_fast(text, "f.json");
  ASSERT_EQ(slow.ok(), fast.ok()) << what;
  if (slow.ok()) {
    EXPECT_EQ(*slow, *fast) << what;
    EXPECT_EQ(dump_json(*slow), dump_json(*fast)) << what;
  } else {
    EXPECT_EQ(slow.error().message(), fast.error().message()) << what;
  }
  // The simdjson half never gives a value the slow path would not.
  if (auto simd = parse_json_simd(text)) {
    ASSERT_TRUE(slow.ok()) << what;
    EXPECT_EQ(dump_json(*slow), dump_json(*simd)) << what;
  }
}

TEST(FastJson, SameValueOrErrorOnEveryJsonFileInTheTree) {
  auto files = json_files_in_tree();
  ASSERT_GT(files.size(), 50u);
  for (const auto& f : files) expect_same_parse(test::read_file(f), f);
}

TEST(FastJson, TakesTheFastPathForRealEvidence) {
  if (!fast_json_available()) GTEST_SKIP() << "built without simdjson (JETGATE_WITH_SIMDJSON=OFF)";
  for (const char* f : {"docs/examples/evidence-h200-cuda-runtime.json",
                        "tests/fixtures/claims/jetgate-orin/jetson-cuda-runtime.json"})
    EXPECT_TRUE(parse_json_simd(test::read_file(std::string(JETGATE_SOURCE_DIR) + "/" + f))) << f;
}

TEST(FastJson, HostileInputsGetTheSlowPathsAnswer) {
  std::vector<std::string> cases = {"",
                                    " ",
                                    "{",
                                    "[1,2,]",
                                    "{\"a\":1,}",
                                    "01",
                                    "1.",
                                    ".5",
                                    "-",
                                    "1e",
                                    "+1",
                                    "NaN",
                                    "Infinity",
                                    "-0",
                                    "0",
                                    "-0.0",
                                    "0.0",
                                    "-1e-400",
                                    "1e-400",
                                    "1e999",
                                    "-1e999",
                                    "1E400",
                                    "18446744073709551615",
                                    "18446744073709551616",
                                    "-9223372036854775808",
                                    "-9223372036854775809",
                                    "9223372036854775807",
                                    "9223372036854775808",
                                    "1.5",
                                    "[1.0, 1]",
                                    "{\"a\":1,\"a\":2}",
                                    "{\"a\":{\"b\":1},\"a\":[2]}",
                                    "\"\\u0000\"",
                                    "\"\\ud800\"",
                                    "\"\\udc00\"",
                                    "\"\\ud83d\\ude00\"",
                                    "\"\\ud800\\u0041\"",
                                    "\"\xed\xa0\x80\"",
                                    "\"\xc0\xaf\"",
                                    "\"\xf4\x90\x80\x80\"",
                                    "\"\xff\"",
                                    "\"a\tb\"",
                                    "\"a\nb\"",
                                    "\xef\xbb\xbf{}",
                                    "{} {}",
                                    "{}\n",
                                    "\f{}",
                                    "{\"a\":1}x",
                                    "tru",
                                    "true",
                                    "null",
                                    "nul",
                                    "[true,false,null]",
                                    "{\"k\":[{\"x\":-0.0}]}",
                                    "{\"k\":[{\"x\":-0}]}"};
  cases.push_back(std::string("{\"a\":\"x\0y\"}", 11));
  cases.push_back(std::string("[1,\0]", 5));
  for (std::size_t depth : {kMaxJsonDepth - 1, kMaxJsonDepth, kMaxJsonDepth + 1, 2000ul}) {
    cases.push_back(std::string(depth, '[') + std::string(depth, ']'));
    std::string obj;
    for (std::size_t i = 0; i < depth; ++i) obj += "{\"a\":";
    obj += "1" + std::string(depth, '}');
    cases.push_back(obj);
    // Unbalanced: too deep and broken.
    cases.push_back(std::string(depth, '['));
  }
  for (const auto& c : cases) expect_same_parse(c, quoted_text(c, 60));
}

// Left out by the fast path while it converts, or by keep_json after the slow
// parse: the same document; and every file of the tree with the loader's paths.
void expect_same_kept(std::string_view text, const JsonKeep& keep, const std::string& what) {
  auto slow = parse_json_text(text, "f.json");
  auto fast = parse_json_fast(text, "f.json", keep);
  ASSERT_EQ(slow.ok(), fast.ok()) << what;
  if (!slow.ok()) {
    EXPECT_EQ(slow.error().message(), fast.error().message()) << what;
    return;
  }
  keep_json(*slow, keep);
  EXPECT_EQ(dump_json(*slow), dump_json(*fast)) << what;
  if (auto simd = parse_json_simd(text, &keep)) {
    EXPECT_EQ(dump_json(*slow), dump_json(*simd)) << what;
  }
}

TEST(FastJson, KeptAlikeOnEveryJsonFileInTheTree) {
  for (const auto& f : json_files_in_tree())
    expect_same_kept(test::read_file(f), claims::judged_keys(), f);
}

TEST(FastJson, KeepTakesTheNamedMembersAndTheWayToThem) {
  JsonKeep keep({{"a"},
                 {"probes", "*", "status"},
                 {"probes", "p", "reason"},
                 {"list", "*", "x"},
                 {"flat", "y"},
                 {"o", "z"}});
  std::string text = R"({"a": {"deep": [1, {"host": "h"}]}, "b": {"a": 2},
    "probes": {"p": {"status": "PASS", "reason": "r", "details": {"x": 1}},
               "q": {"status": "FAIL", "reason": "gone", "details": [1, 2]},
               "r": {"details": "text"}, "s": "not an object"},
    "list": [{"x": 1, "y": 2}, 3, {"y": 4}, []],
    "flat": [1, 2], "o": {}})";
  auto fast = parse_json_fast(text, "f.json", keep);
  ASSERT_TRUE(fast.ok());
  EXPECT_EQ(dump_json(*fast),
            R"({"a":{"deep":[1,{"host":"h"}]},"flat":[],"list":[{"x":1},3,{},[]],"o":{},)"
            R"("probes":{"p":{"reason":"r","status":"PASS"},"q":{"status":"FAIL"},"r":{},)"
            R"("s":"not an object"}})");
  expect_same_kept(text, keep, "the example");
  // Duplicate keys, -0.0 and depth inside what is left out: the slow path's answer.
  for (const char* hostile :
       {R"({"probes":{"p":{"details":{"host":"a","host":{"x":1}}}}})",
        R"({"probes":{"p":{"details":{"host":"a"},"details":{"y":1}}}})",
        R"({"probes":{"p":{"status":"a","status":"b"}}})", R"({"b":[-0.0]})",
        R"({"probes":{"p":{"details":[-0.0]}}})", R"({"probes":{"p":{"details":{"a":-0}}}})",
        R"({"a":1,"a":{"host":"h"}})", R"({"b":1,"b":[-0.0]})", R"({"b":-1e-400})", "[-0.0]",
        R"([{"a":1}])", R"("text")", "7"})
    expect_same_kept(hostile, keep, hostile);
  std::string deep =
      R"({"probes":{"p":{"details":)" + std::string(70, '[') + std::string(70, ']') + "}}}";
  expect_same_kept(deep, keep, "deep");
}

// Evidence read through the fast path is the evidence the slow path reads, or the same error.
TEST(FastJson, EvidenceFromTextMatchesTheSlowPathOnEveryFile) {
  for (const auto& f : json_files_in_tree()) {
    std::string text = test::read_file(f);
    auto fast = evidence::evidence_from_text(text, f);
    Result<evidence::Evidence> slow = [&]() -> Result<evidence::Evidence> {
      auto parsed = parse_json_text(text, f);
      if (!parsed)
        return make_error(parsed.error().what + " (empty, truncated or corrupt)",
                          parsed.error().where, "re-run the gate to write fresh evidence");
      auto e = evidence::evidence_from_json(*parsed);
      if (!e) {
        const auto& err = e.error();
        return make_error(
            err.what, f + (err.where.empty() || err.where == "/" ? "" : "#" + err.where), err.hint);
      }
      return e;
    }();
    ASSERT_EQ(fast.ok(), slow.ok()) << f;
    if (fast.ok())
      EXPECT_EQ(dump_json(evidence::to_json(*fast)), dump_json(evidence::to_json(*slow))) << f;
    else
      EXPECT_EQ(fast.error().message(), slow.error().message()) << f;
  }
}

trust::SigningKey key_from(char c) {
  std::array<unsigned char, 32> seed{};
  seed.fill(static_cast<unsigned char>(c));
  return trust::SigningKey::from_seed(seed);
}

std::vector<trust::TrustedKey> trusted_of(const trust::SigningKey& k) {
  trust::TrustedKey t;
  t.key_id = k.key_id();
  t.public_key = k.public_key();
  t.owner = "ci";
  return {t};
}

// A directory of evidence: good files from the fixtures, corrupt ones, wrong
// names, signed, unsigned, tampered and foreign-signed ones.
struct Corpus {
  test::TempDir t;
  trust::SigningKey key = key_from('k');
  trust::SigningKey stranger = key_from('s');
  std::string dir = t.path("ev");
  std::string dir2 = t.path("ev2");

  Corpus() {
    stdfs::create_directories(dir);
    stdfs::create_directories(dir2);
    for (const auto& entry : stdfs::recursive_directory_iterator(stdfs::path(JETGATE_SOURCE_DIR) /
                                                                 "tests/fixtures/claims")) {
      if (!entry.is_regular_file()) continue;
      const auto& p = entry.path();
      std::string name = p.parent_path().filename().string() + "-" + p.filename().string();
      std::ofstream(dir2 + "/" + name) << test::read_file(p.string());
    }
    for (int i = 0; i < 120; ++i) {
      std::string gate = "gate-" + std::to_string(i);
      auto doc = test::orin_evidence_json(
          "2026-11-" + std::to_string(10 + i % 19) + "T10:00:00Z",
          {{"gate", gate}, {"probes", {{"launch", {{"status", i % 7 ? "PASS" : "FAIL"}}}}}});
      std::string text = i % 11 == 5 ? doc.dump() : doc.dump(2);
      if (i % 13 == 4) text = text.substr(0, text.size() / 2);  // truncated
      if (i % 17 == 3) doc["gate"] = "another-gate", text = doc.dump(2);
      std::ofstream(dir + "/" + gate + ".json") << text;
      const std::string sha = "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39";
      if (i % 3 == 0) {
        auto env = trust::sign_evidence_text(dir, gate, text, "acme/robot", sha,
                                             i % 9 == 0 ? stranger : key);
        EXPECT_TRUE(env.ok() || i % 13 == 4) << (env.ok() ? "" : env.error().message());
      }
      if (i % 15 == 6) {  // edited after signing
        doc["reason"] = "edited";
        std::ofstream(dir + "/" + gate + ".json") << doc.dump(4);
      }
      if (i % 15 == 9) std::ofstream(dir + "/" + gate + ".json") << doc.dump(4);  // re-indented
      if (i % 19 == 7) std::ofstream(dir + "/" + gate + ".dsse.json") << "{not json";
    }
    std::ofstream(dir + "/Not_A_Gate.json") << "{}";
  }
};

// Everything the set says of each file: fields, verdict with its signature
// (checked here, as a decision would), platform and lane.
std::string describe(const claims::EvidenceSet& set) {
  std::string out;
  for (const auto& le : set.loaded) {
    const auto& sig = set.signature(le);
    auto v = set.verdict(le);
    out += le.file + " " + dump_json(evidence::to_json(le.evidence)) +
           " sig=" + std::to_string(static_cast<int>(sig.outcome)) +
           (sig.envelope_present ? " env " : " - ") + sig.why + " " + sig.key_id + " " +
           claims::to_string(v.state) + " " + v.detail + " " + le.platform->platform + " / " +
           le.platform->runtime + " " + *le.lane + "\n";
  }
  for (const auto& s : set.skipped) out += "skipped " + s.file + " " + s.gate + ": " + s.why + "\n";
  return out;
}

claims::JudgeRules rules_of(bool signatures) {
  claims::JudgeRules r;
  r.today = *evidence::parse_iso_date("2026-11-29");
  r.signatures_required = signatures;
  return r;
}

TEST(EvidenceLoader, SameSetOnOneAndOnManyThreads) {
  Corpus c;
  for (const auto& keys : {std::vector<trust::TrustedKey>{}, trusted_of(c.key)}) {
    auto one = claims::load_evidence_dirs({c.dir, c.dir2}, rules_of(!keys.empty()), keys,
                                          std::string("acme/robot"), 1);
    ASSERT_TRUE(one.ok()) << one.error().message();
    EXPECT_GT(one->loaded.size(), 60u);
    EXPECT_GT(one->skipped.size(), 10u);
    for (unsigned threads : {2u, 3u, 8u, 0u}) {
      auto many = claims::load_evidence_dirs({c.dir, c.dir2}, rules_of(!keys.empty()), keys,
                                             std::string("acme/robot"), threads);
      ASSERT_TRUE(many.ok());
      EXPECT_EQ(describe(*one), describe(*many)) << threads << " threads";
    }
  }
}

// The loader's record of each file is what the file-by-file path gives:
// read_evidence (the whole document), check_evidence_file (which reads the
// file again), then the one verdict, platform key and lane.
TEST(EvidenceLoader, OneReadGivesTheVerdictsOfReadingTwice) {
  Corpus c;
  auto keys = trusted_of(c.key);
  const auto rules = rules_of(true);
  auto set = claims::load_evidence_dirs({c.dir}, rules, keys, std::string("acme/robot"), 4);
  ASSERT_TRUE(set.ok());
  int verified = 0, rejected = 0, unsigned_ = 0;
  for (const auto& le : set->loaded) {
    auto again = evidence::read_evidence(le.file);
    ASSERT_TRUE(again.ok()) << le.file;
    auto core = *again;
    core.extra = nlohmann::json();
    EXPECT_EQ(dump_json(evidence::to_json(core)), dump_json(evidence::to_json(le.evidence)));
    auto sig = trust::check_evidence_file(le.file, again->git_sha, keys, std::string("acme/robot"));
    const auto& loaded_sig = set->signature(le);
    EXPECT_EQ(sig.outcome, loaded_sig.outcome) << le.file;
    EXPECT_EQ(sig.why, loaded_sig.why) << le.file;
    EXPECT_EQ(sig.key_id, loaded_sig.key_id) << le.file;
    EXPECT_EQ(sig.envelope_present, loaded_sig.envelope_present) << le.file;
    auto whole = claims::judge_evidence(*again, sig, rules);
    auto v = set->verdict(le);
    EXPECT_EQ(whole.state, v.state) << le.file;
    EXPECT_EQ(whole.problems, v.problems) << le.file;
    EXPECT_EQ(whole.warnings, v.warnings) << le.file;
    EXPECT_EQ(whole.evidence_date, v.evidence_date) << le.file;
    EXPECT_EQ(backs_claim(whole), set->backs(le)) << le.file;
    auto key = claims::platform_key(*again);
    EXPECT_EQ(key.platform, le.platform->platform);
    EXPECT_EQ(key.runtime, le.platform->runtime);
    EXPECT_EQ(dump_json(key.facts), dump_json(le.platform->facts));
    EXPECT_EQ(claims::lane_of(le.file, again->extra), *le.lane);
    auto reread = set->reread(le);
    ASSERT_TRUE(reread.ok()) << reread.error().message();
    EXPECT_EQ(dump_json(evidence::to_json(*reread)), dump_json(evidence::to_json(*again)));
    verified += sig.outcome == trust::Signature::verified;
    rejected += sig.outcome == trust::Signature::rejected;
    unsigned_ += sig.outcome == trust::Signature::unsigned_;
  }
  // The corpus has each kind, so the comparison above covers each.
  EXPECT_GT(verified, 10);
  EXPECT_GT(rejected, 5);
  EXPECT_GT(unsigned_, 30);
}

TEST(EvidenceLoader, SignatureOverBytesInMemoryMatchesTheFileBasedCheck) {
  Corpus c;
  auto keys = trusted_of(c.key);
  for (const auto& entry : stdfs::directory_iterator(c.dir)) {
    std::string file = entry.path().string();
    if (trust::is_envelope_name(entry.path().filename().string())) continue;
    auto doc = parse_json_text(test::read_file(file), file);
    if (!doc) continue;
    for (const std::string sha : {"3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39", "local"}) {
      for (const auto& repo :
           {std::optional<std::string>("acme/robot"), std::optional<std::string>("acme/other"),
            std::optional<std::string>()}) {
        auto a = trust::check_evidence_file(file, sha, keys, repo);
        auto b = trust::check_evidence_document(file, *doc, sha, keys, repo);
        EXPECT_EQ(a.outcome, b.outcome) << file;
        EXPECT_EQ(a.why, b.why) << file;
        EXPECT_EQ(a.envelope_present, b.envelope_present) << file;
        EXPECT_EQ(a.key_id, b.key_id) << file;
      }
    }
  }
}

}  // namespace
}  // namespace jetgate
