// SPDX-License-Identifier: Apache-2.0
// The house rule docs/architecture.md states: data flows one way,
//   core < fs, proc < cuda < facts, probes < evidence < trust < policy
//        < gate, claims, init < history < report < cli
// A file may include headers of its own folder and of lower layers only. Folders on the
// same layer (fs and proc; facts and probes) do not include each other. A new folder
// must be given its place here (and in docs/architecture.md) before it can be used.
// No source uses the standard library's regular expressions (core/pattern.hpp says why).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "jetgate/core/pattern.hpp"

namespace {

namespace fs = std::filesystem;

const std::map<std::string, int>& layer_of() {
  static const std::map<std::string, int> layers = {
      {"core", 0},   {"fs", 1},       {"proc", 1},    {"cuda", 2},   {"facts", 3}, {"probes", 3},
      {"record", 4}, {"evidence", 5}, {"trust", 6},   {"policy", 7}, {"gate", 8},  {"claims", 8},
      {"init", 8},   {"history", 9},  {"report", 10}, {"cli", 11},
  };
  return layers;
}

// "src/jetgate/gate/x.cpp" -> "gate"; "src/cli/main.cpp" -> "cli".
std::string folder_of_source(const fs::path& relative) {
  auto it = relative.begin();
  if (it == relative.end() || *it != "src") return {};
  ++it;
  if (it == relative.end()) return {};
  if (*it == "cli") return "cli";
  if (*it != "jetgate") return {};
  ++it;
  return it == relative.end() ? std::string{} : it->string();
}

// The folder a quoted include names: "jetgate/gate/x.hpp" -> "gate", "cli/commands.hpp" -> "cli".
std::string folder_of_include(const std::string& include) {
  if (include.rfind("cli/", 0) == 0) return "cli";
  if (include.rfind("jetgate/", 0) != 0) return {};
  auto rest = include.substr(8);
  auto slash = rest.find('/');
  return slash == std::string::npos ? std::string{} : rest.substr(0, slash);
}

struct Include {
  std::string file;
  int line;
  std::string from, to;
};

// Every C++ or CUDA source under src/, as a path relative to the repository.
std::vector<fs::path> all_sources() {
  std::vector<fs::path> out;
  const fs::path root = JETGATE_SOURCE_DIR;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    if (!entry.is_regular_file()) continue;
    auto ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".h") continue;
    out.push_back(fs::relative(entry.path(), root));
  }
  return out;
}

std::vector<Include> all_includes() {
  std::vector<Include> out;
  const fs::path root = JETGATE_SOURCE_DIR;
  static const jetgate::Pattern include_re(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& relative : all_sources()) {
    std::string from = folder_of_source(relative);
    std::ifstream in(root / relative);
    std::string text;
    int n = 0;
    while (std::getline(in, text)) {
      ++n;
      auto m = include_re.search(text);
      if (!m) continue;
      out.push_back({relative.string(), n, from, folder_of_include(m->str(1))});
    }
  }
  return out;
}

TEST(Layering, EveryFolderHasALayer) {
  const fs::path root = JETGATE_SOURCE_DIR;
  for (const auto& entry : fs::directory_iterator(root / "src" / "jetgate")) {
    if (!entry.is_directory()) continue;
    EXPECT_TRUE(layer_of().count(entry.path().filename().string()))
        << "src/jetgate/" << entry.path().filename().string()
        << " has no layer: give it one in tests/unit/layering_test.cpp and docs/architecture.md";
  }
}

TEST(Layering, NoFileIncludesAHeaderFromAHigherOrSiblingLayer) {
  auto includes = all_includes();
  ASSERT_GT(includes.size(), 100u)
      << "the scan found too few includes: is JETGATE_SOURCE_DIR right?";
  for (const auto& inc : includes) {
    if (inc.to.empty() || inc.from.empty() || inc.from == inc.to) continue;
    auto from = layer_of().find(inc.from), to = layer_of().find(inc.to);
    ASSERT_NE(from, layer_of().end()) << inc.file << " is in a folder without a layer";
    ASSERT_NE(to, layer_of().end())
        << inc.file << ":" << inc.line << " includes a folder without a layer";
    EXPECT_LT(to->second, from->second)
        << inc.file << ":" << inc.line << " (" << inc.from << ") includes a header of " << inc.to
        << ", which is not below it: data flows core < fs, proc < cuda < facts, probes < evidence "
           "< "
           "trust < gate < claims < history < report < cli";
  }
}

// Producing evidence (gate/) and judging it (claims/) share no code: the evidence file
// is their only contract, so a verdict can never depend on how the runner happened to
// build a value in memory. Both read the policy (policy/).
TEST(Layering, ClaimsNeverIncludesGateNorGateClaims) {
  for (const auto& inc : all_includes()) {
    bool claims_gate = inc.from == "claims" && inc.to == "gate";
    bool gate_claims = inc.from == "gate" && inc.to == "claims";
    EXPECT_FALSE(claims_gate || gate_claims)
        << inc.file << ":" << inc.line << " (" << inc.from << ") includes " << inc.to
        << ": the evidence file is the only contract between producing evidence (gate/) and "
           "judging it (claims/); share the rule through policy/ or evidence/ instead";
  }
  EXPECT_EQ(layer_of().at("gate"), layer_of().at("claims"))
      << "gate and claims are siblings: the sibling rule is what keeps them apart";
}

// The spellings of the standard library's regular expressions: its header and
// its names (std::regex_search and std::regex_match start with std::regex).
const std::vector<std::string>& standard_regex_spellings() {
  static const std::vector<std::string> spellings = {
      "<regex>",     "std::regex",  "std::wregex", "std::basic_regex",  "std::sregex",
      "std::cregex", "std::smatch", "std::cmatch", "std::match_results"};
  return spellings;
}

// "file:line: spelling" for each use of the standard library's regular
// expressions in text (the whole file).
std::vector<std::string> standard_regex_uses(const std::string& file, const std::string& text) {
  std::vector<std::string> uses;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    for (const auto& s : standard_regex_spellings())
      if (line.find(s) != std::string::npos)
        uses.push_back(file + ":" + std::to_string(n) + ": " + s);
  return uses;
}

// libstdc++'s regular expressions recurse once per character and overflowed
// the stack on a cvconfig.h of 30,000 spaces; src/ uses RE2 (core/pattern.hpp).
TEST(Layering, NoSourceUsesTheStandardRegex) {
  const fs::path root = JETGATE_SOURCE_DIR;
  auto sources = all_sources();
  ASSERT_GT(sources.size(), 100u) << "the scan found too few sources";
  for (const auto& relative : sources) {
    std::ifstream in(root / relative);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& use : standard_regex_uses(relative.string(), text.str()))
      ADD_FAILURE() << use << ": use jetgate::Pattern (src/jetgate/core/pattern.hpp), RE2";
  }
}

TEST(Layering, TheRegexCheckSeesAUse) {
  EXPECT_EQ(standard_regex_uses("a.cpp", "#include <string>\n#include <regex>\n"),
            std::vector<std::string>{"a.cpp:2: <regex>"});
  EXPECT_EQ(standard_regex_uses("b.cpp", "  std::smatch m;\n"),
            std::vector<std::string>{"b.cpp:1: std::smatch"});
  EXPECT_EQ(standard_regex_uses("c.cpp", "x = std::regex_search(s, m, r);\n"),
            std::vector<std::string>{"c.cpp:1: std::regex"});
  EXPECT_TRUE(standard_regex_uses("d.cpp", "#include \"jetgate/core/pattern.hpp\"\n").empty());
}

TEST(Layering, TheCheckerSeesAViolation) {
  // The rule itself, on made-up pairs: claims including report is upward, and
  // siblings (gate and claims) are not below each other.
  EXPECT_LT(layer_of().at("claims"), layer_of().at("report"));
  EXPECT_FALSE(layer_of().at("gate") < layer_of().at("claims"));
  EXPECT_LT(layer_of().at("policy"), layer_of().at("gate"));
  EXPECT_EQ(folder_of_include("jetgate/claims/evidence_set.hpp"), "claims");
  EXPECT_EQ(folder_of_source(fs::path("src/jetgate/gate/check.cpp")), "gate");
  EXPECT_EQ(folder_of_source(fs::path("src/cli/main.cpp")), "cli");
  EXPECT_EQ(folder_of_include("fmt/format.h"), "");
}

}  // namespace
