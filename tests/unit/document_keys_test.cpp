// SPDX-License-Identifier: Apache-2.0
// core/document_keys.hpp, docs/evidence-schema.md and the documents jetgate
// writes are one contract: the header names every pointer the schema
// document lists and nothing else, and every key in a document jetgate writes
// (the recorded machines' `probe --json` goldens, `probe --cuda --json` with
// the fake driver, gate evidence) is a named, documented pointer or lies
// inside one that the document describes as a whole.
#include "jetgate/core/document_keys.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

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

// "`/a/b`, `/c`" -> /a/b, /a/c; "`/a/{x,y}`" -> /a/x, /a/y.
std::vector<std::string> expand_cell(const std::string& cell) {
  std::vector<std::string> items, out;
  for (std::size_t at = cell.find('`'); at != std::string::npos;) {
    auto end = cell.find('`', at + 1);
    if (end == std::string::npos) break;
    items.push_back(cell.substr(at + 1, end - at - 1));
    at = cell.find('`', end + 1);
  }
  std::string base;
  for (const auto& item : items) {
    std::vector<std::string> expanded;
    auto open = item.find('{'), close = item.find('}');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      std::string head = item.substr(0, open), tail = item.substr(close + 1);
      std::string list = item.substr(open + 1, close - open - 1);
      std::stringstream ss(list);
      for (std::string part; std::getline(ss, part, ',');) {
        part.erase(0, part.find_first_not_of(' '));
        part.erase(part.find_last_not_of(' ') + 1);
        expanded.push_back(head + part + tail);
      }
    } else {
      expanded.push_back(item);
    }
    for (const auto& e : expanded) {
      if (base.empty()) {
        base = e;
        out.push_back(e);
      } else if (std::count(e.begin(), e.end(), '/') == 1) {
        out.push_back(base.substr(0, base.rfind('/')) + e);  // relative to the row's first
      } else {
        out.push_back(e);
      }
    }
  }
  return out;
}

// Every pointer in the first column of docs/evidence-schema.md's tables.
std::set<std::string> documented_pointers() {
  std::set<std::string> out;
  std::stringstream doc(read_text(stdfs::path(JETGATE_SOURCE_DIR) / "docs/evidence-schema.md"));
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("| `/", 0) != 0) continue;
    auto cell_end = line.find(" |", 2);
    for (auto& p : expand_cell(line.substr(2, cell_end - 2))) {
      if (p == "/probes/ID") p = "/probes";
      out.insert(p);
    }
  }
  return out;
}

std::set<std::string> named_pointers() {
  std::set<std::string> out;
  for (const auto& k : keys::all_keys()) out.insert(k.pointer);
  return out;
}

TEST(DocumentKeys, TheHeaderNamesExactlyThePointersTheSchemaDocuments) {
  auto documented = documented_pointers();
  auto named = named_pointers();
  ASSERT_GT(documented.size(), 100u) << "the table scan found too few pointers";
  for (const auto& p : documented)
    EXPECT_TRUE(named.count(p)) << p << " is documented in docs/evidence-schema.md but has no "
                                << "name in core/document_keys.hpp: add it there";
  for (const auto& p : named)
    EXPECT_TRUE(documented.count(p)) << p << " is named in core/document_keys.hpp but not "
                                     << "documented in docs/evidence-schema.md";
  std::set<std::string> names;
  for (const auto& k : keys::all_keys()) EXPECT_TRUE(names.insert(k.name).second) << k.name;
}

TEST(DocumentKeys, EveryNamedPointerIsAValidPointer) {
  for (const auto& k : keys::all_keys()) {
    std::string p = k.pointer;
    EXPECT_EQ(p.front(), '/') << k.name;
    EXPECT_NO_THROW(keys::Pointer{p}) << k.name;
  }
}

// The sections another document lists key by key: only their presence is checked here.
const std::set<std::string> kDocumentedElsewhere = {
    "/gpu",     // probes.md
    "/probes",  // probes.md, one entry per probe id
    "/python",  // python-runtime.md
};

// A named pointer covers its whole subtree when no other named pointer lies below it
// (its row describes the object: /platform/tegra/eeprom is `{part_number, ...}`).
bool covers_whole(const std::string& p, const std::set<std::string>& named) {
  if (kDocumentedElsewhere.count(p)) return true;
  if (!named.count(p)) return false;
  auto below = named.lower_bound(p + "/");
  return below == named.end() || below->rfind(p + "/", 0) != 0;
}

// Every key path in j that no named pointer documents.
void undocumented_keys(const json& j, const std::string& at, const std::set<std::string>& named,
                       std::set<std::string>& out) {
  if (!at.empty() && covers_whole(at, named)) return;
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) undocumented_keys(v, at + "/" + k, named, out);
  } else if (!named.count(at)) {
    // A section documented key by key is null as a whole when absent (no cpufreq:
    // /platform/power/cpu is null).
    auto below = named.lower_bound(at + "/");
    bool section = below != named.end() && below->rfind(at + "/", 0) == 0;
    if (!(j.is_null() && section)) out.insert(at);
  }
}

void expect_documented(const json& doc, const std::string& what) {
  std::set<std::string> missing;
  undocumented_keys(doc, "", named_pointers(), missing);
  for (const auto& m : missing)
    ADD_FAILURE() << what << " writes " << m
                  << ", which docs/evidence-schema.md does not document (and "
                     "core/document_keys.hpp does not name)";
}

TEST(DocumentKeys, EveryRecordedMachinesProbeDocumentUsesOnlyDocumentedKeys) {
  int seen = 0;
  for (const auto& entry : stdfs::directory_iterator(JETGATE_FIXTURES_DIR)) {
    auto golden = entry.path() / "expected.json";
    if (!stdfs::exists(golden)) continue;
    auto doc = json::parse(read_text(golden), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << golden;
    expect_documented(doc, golden.string());
    ++seen;
  }
  EXPECT_GE(seen, 20) << "too few recorded machines found under " << JETGATE_FIXTURES_DIR;
}

TEST(DocumentKeys, ProbeWithTheGpuUsesOnlyDocumentedKeys) {
  auto r = test::run_jetgate({"probe", "--cuda", "--json"},
                             {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  ASSERT_TRUE(doc.contains("gpu") && doc.contains("probes")) << r.out;
  expect_documented(doc, "probe --cuda --json");
}

TEST(DocumentKeys, GateEvidenceUsesOnlyDocumentedKeys) {
  test::TempDir t;
  auto r = test::run_jetgate({"run", "jetson-cuda-runtime", "--evidence-dir", t.path("ev")},
                             {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  auto doc = json::parse(test::read_file(t.path("ev/jetson-cuda-runtime.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  ASSERT_TRUE(doc.contains("checks")) << doc.dump(1);
  expect_documented(doc, "run's evidence");
}

// The walker itself: a key outside every named pointer is found; one inside a
// pointer described as a whole is not.
TEST(DocumentKeys, TheWalkerFindsAnUndocumentedKey) {
  std::set<std::string> missing;
  json doc = {{"platform", {{"arch", "x86_64"}, {"arch_typo", "x"}}},
              {"dirty", false},
              {"platform_extra", 1}};
  doc["platform"]["tegra"]["eeprom"] = {{"anything", 1}};
  undocumented_keys(doc, "", named_pointers(), missing);
  EXPECT_EQ(missing, (std::set<std::string>{"/platform/arch_typo", "/platform_extra"}));
}

// A sub-document's writer spells a key relative to the object it builds.
TEST(DocumentKeys, RelativeGivesTheKeyInsideItsParent) {
  EXPECT_EQ(keys::relative(keys::kTegraL4tSource, keys::kPlatformTegra).to_string(), "/l4t_source");
  EXPECT_EQ(keys::relative(keys::kTegraDriverModules, keys::kPlatform).to_string(),
            "/tegra/driver/modules");
  EXPECT_EQ(keys::relative(keys::kDriverVersion, keys::kGpu).to_string(), "/driver/version");
}

TEST(DocumentKeys, RelativeRefusesAKeyOutsideTheParent) {
  EXPECT_THROW(keys::relative(keys::kArch, keys::kPlatformTegra), std::logic_error);
  EXPECT_THROW(keys::relative(keys::kPlatformTegra, keys::kPlatformTegra), std::logic_error);
  // A shared prefix is not a parent: /platform/tegra/is_tegra is not below /platform/tegra/is.
  EXPECT_THROW(keys::relative(keys::kIsTegra, keys::Pointer("/platform/tegra/is")),
               std::logic_error);
}

// find() by a pointer spelled in the caller's code walks the text in place;
// it finds exactly what the parsed pointer finds, on any document.
TEST(DocumentKeys, FindByTextFindsWhatTheParsedPointerFinds) {
  const std::vector<nlohmann::json> docs = {
      nlohmann::json::parse(R"({"a": {"b": [10, {"c": "x"}, null], "": 1, "d/e": 2, "f~g": 3},
                               "n": null, "s": "str", "arr": [[0, 1], []]})"),
      nlohmann::json::array({1, {{"a", 2}}}), nlohmann::json("text"), nlohmann::json(nullptr)};
  const std::vector<std::string> pointers = {"",
                                             "/",
                                             "/a",
                                             "/a/b",
                                             "/a/b/0",
                                             "/a/b/1/c",
                                             "/a/b/2",
                                             "/a/b/3",
                                             "/a/b/01",
                                             "/a/b/-",
                                             "/a/b/+1",
                                             "/a/b/1x",
                                             "/a/b/99999999999",
                                             "/a/",
                                             "/a/d~1e",
                                             "/a/f~0g",
                                             "/a/d/e",
                                             "/n",
                                             "/n/x",
                                             "/s",
                                             "/s/0",
                                             "/arr/0/1",
                                             "/arr/1/0",
                                             "/0",
                                             "/1/a",
                                             "/x",
                                             "a",
                                             "/a//"};
  for (const auto& doc : docs)
    for (const auto& p : pointers) {
      const nlohmann::json* by_text = keys::find(doc, p.c_str());
      const nlohmann::json* parsed = nullptr;
      try {
        parsed = keys::find(doc, keys::Pointer(p));
      } catch (const nlohmann::json::exception&) {
        parsed = nullptr;  // not a pointer at all ("a"): found nowhere
      }
      EXPECT_EQ(by_text, parsed) << doc.dump() << " " << p;
    }
}

}  // namespace
}  // namespace jetgate
