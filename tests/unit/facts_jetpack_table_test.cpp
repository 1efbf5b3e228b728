// SPDX-License-Identifier: Apache-2.0
// The L4T -> JetPack table: it loads, covers R21-R39, and maps every release
// the way jetson_stats and jetson-containers do, except where a documented
// difference (tests/fixtures/l4t-tables/differences.json) says why not.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "jetgate/facts/jetpack_table.hpp"
#include "jetgate/facts/text.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;

const JetpackTable& table() {
  const auto& t = builtin_jetpack_table();
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return t.value();
}

json load(const std::string& rel) {
  auto j = json::parse(test::read_file(test::fixtures_dir() + "/" + rel), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << rel;
  return j;
}

using ValueSet = std::set<std::pair<std::string, std::string>>;  // (version, marker)

ValueSet value_set(const std::vector<std::string>& values) {
  ValueSet out;
  for (const auto& v : values) out.insert({jetpack_number(v), jetpack_marker(v)});
  return out;
}

// "2.3.1 | 2.3" -> {"2.3.1", "2.3"}
std::vector<std::string> split_alternatives(const std::string& value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    auto bar = value.find('|', start);
    out.emplace_back(
        trim(value.substr(start, bar == std::string::npos ? std::string::npos : bar - start)));
    if (bar == std::string::npos) return out;
    start = bar + 1;
  }
}

// "32.5" -> "32.5.0"; a tool's two-part alias of a release is the X.Y.0 release.
std::string three_parts(const std::string& v) {
  return std::count(v.begin(), v.end(), '.') == 1 ? v + ".0" : v;
}

struct Difference {
  std::string l4t, tool;
  bool operator<(const Difference& o) const {
    return std::tie(l4t, tool) < std::tie(o.l4t, o.tool);
  }
};

// Every release where `tool` disagrees with jetgate, or has a row jetgate lacks.
std::set<Difference> differences_with(const std::string& tool, std::size_t& agreed) {
  auto doc = load("l4t-tables/" + tool + ".json");
  std::set<Difference> out;
  for (const auto& [key, value] : doc["table"].items()) {
    std::string l4t = three_parts(key);
    if (l4t != key && doc["table"].contains(l4t)) continue;  // an alias of a row compared anyway
    const auto* row = table().find(l4t);
    if (!row ||
        value_set(row->jetpack) != value_set(split_alternatives(value.get<std::string>()))) {
      out.insert({l4t, tool});
    } else {
      ++agreed;
    }
  }
  return out;
}

TEST(JetpackTable, LoadsAndCoversR21ToR39) {
  const auto& t = table();
  std::set<int> majors;
  for (const auto& r : t.releases()) {
    majors.insert(std::stoi(r.l4t));
    EXPECT_FALSE(r.source.empty()) << r.l4t;
  }
  for (int major : {21, 23, 24, 27, 28, 31, 32, 34, 35, 36, 38, 39})
    EXPECT_TRUE(majors.count(major)) << "R" << major;
  EXPECT_GE(t.releases().size(), 70u);
  EXPECT_EQ(t.newest_l4t(), "39.2.1");
}

TEST(JetpackTable, AgreesWithJetsonStatsAndJetsonContainersExceptWhereDocumented) {
  std::size_t agreed_stats = 0, agreed_containers = 0;
  auto found = differences_with("jetson_stats", agreed_stats);
  auto more = differences_with("jetson_containers", agreed_containers);
  found.insert(more.begin(), more.end());
  std::set<Difference> documented;
  auto doc = load("l4t-tables/differences.json");
  for (const auto& d : doc["differences"]) {
    documented.insert({d["l4t"].get<std::string>(), d["tool"].get<std::string>()});
    EXPECT_GT(d["reason"].get<std::string>().size(), 40u)
        << d["l4t"] << ": say why jetgate differs";
  }
  for (const auto& d : found)
    EXPECT_TRUE(documented.count(d)) << "L4T " << d.l4t << " maps differently from " << d.tool
                                     << " and differences.json does not say why";
  for (const auto& d : documented)
    EXPECT_TRUE(found.count(d)) << "differences.json lists L4T " << d.l4t << " for " << d.tool
                                << " but the tables agree there";
  // The cross-check is only worth something if most rows are checked by it.
  EXPECT_GE(agreed_stats, 55u);
  EXPECT_GE(agreed_containers, 50u);
}

// Rows neither tool has: pinned here with the source that justifies each, so a
// wrong value in one of them cannot slip through the cross-check above.
TEST(JetpackTable, RowsOnlyJetgateHas) {
  struct Row {
    const char* l4t;
    std::vector<std::string> jetpack;
    const char* kind;
  };
  const std::vector<Row> rows{{"21.1.0", {}, "bsp"},          {"21.6.0", {}, "bsp"},
                              {"21.7.0", {}, "bsp"},          {"21.8.0", {}, "bsp"},
                              {"24.2.2", {}, "bsp"},          {"24.2.3", {}, "bsp"},
                              {"28.3.0", {"3.3"}, "respin"},  {"28.3.1", {"3.3.1"}, "point"},
                              {"28.3.2", {"3.3.2"}, "point"}, {"28.5.0", {"3.3.4"}, "point"},
                              {"32.2.2", {"4.3 DP"}, "dp"},   {"35.6.5", {"5.1.7"}, "point"},
                              {"36.5.2", {"6.2.3"}, "point"}, {"39.2.1", {"7.2.1"}, "point"}};
  for (const auto& r : rows) {
    const auto* row = table().find(r.l4t);
    ASSERT_NE(row, nullptr) << r.l4t;
    EXPECT_EQ(row->jetpack, r.jetpack) << r.l4t;
    EXPECT_EQ(row->kind, r.kind) << r.l4t;
  }
  std::size_t unused = 0;
  for (const auto& tool : {"jetson_stats", "jetson_containers"}) {
    auto doc = load(std::string("l4t-tables/") + tool + ".json");
    for (const auto& r : rows)
      EXPECT_FALSE(doc["table"].contains(r.l4t)) << r.l4t << " is in " << tool << " now";
    (void)differences_with(tool, unused);
  }
}

// jetsonhacks/jetsonUtilities PR #3 (tests/fixtures/l4t-tables/SOURCE.md): a
// Jetson TX1 on JetPack 3.3 printed "L4T 28.2.0 [ JetPack 3.3 ]".
TEST(JetpackTable, L4t28_2_0ShippedInJetPack3_2And3_2_1And3_3) {
  const auto* row = table().find("28.2.0");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->jetpack, (std::vector<std::string>{"3.2", "3.2.1", "3.3"}));
  EXPECT_TRUE(row->ambiguous());
  EXPECT_EQ(row->display(), "3.2 | 3.2.1 | 3.3");
  EXPECT_FALSE(table().find("28.1.0")->ambiguous()) << "the release before has one JetPack";
}

// jetson_stats' and jetson-containers' own rows (the copies in
// tests/fixtures/l4t-tables/): pre-release and early-access L4T releases get
// their JetPack with the tools' marker instead of null.
TEST(JetpackTable, PreReleasesMapToTheirJetPackWithAMarker) {
  auto stats = load("l4t-tables/jetson_stats.json")["table"];
  auto containers = load("l4t-tables/jetson_containers.json")["table"];
  for (const auto& [l4t, kind] : std::vector<std::pair<std::string, std::string>>{
           {"34.0.1", "pre"}, {"35.3.0", "pre"}, {"38.1.0", "ea"}, {"39.0.0", "ea"}}) {
    const auto* row = table().find(l4t);
    ASSERT_NE(row, nullptr) << l4t;
    ASSERT_EQ(row->jetpack.size(), 1u) << l4t;
    EXPECT_EQ(row->kind, kind) << l4t;
    EXPECT_FALSE(jetpack_marker(row->jetpack[0]).empty()) << l4t << " carries its marker";
    EXPECT_EQ(row->jetpack[0], containers[l4t].get<std::string>()) << l4t;
    if (stats.contains(l4t)) {
      EXPECT_EQ(row->jetpack[0], stats[l4t].get<std::string>()) << l4t;
    }
  }
  EXPECT_EQ(jetpack_marker(table().find("35.3.0")->jetpack[0]), "PRE");
  EXPECT_EQ(jetpack_number(table().find("35.3.0")->jetpack[0]), "5.1.1");
  EXPECT_EQ(table().find("35.3.1")->kind, "point") << "the release itself stays a point release";
}

TEST(JetpackTable, ValuesAndMarkers) {
  EXPECT_EQ(table().find("36.4.3")->display(), "6.2");
  EXPECT_EQ(table().find("36.2.0")->display(), "6.0 DP");
  EXPECT_EQ(table().find("32.5.0")->display(), "4.5");
  EXPECT_EQ(table().find("35.6.1")->display(), "5.1.5");
  EXPECT_EQ(table().find("35.6.2")->kind, "respin");
  EXPECT_TRUE(table().find("28.2.1")->ambiguous());
  EXPECT_EQ(table().find("28.2.1")->display(), "3.2.1 | 3.3");
  EXPECT_TRUE(table().find("21.7.0")->jetpack.empty());
  EXPECT_EQ(table().find("36.9.9"), nullptr);
  EXPECT_EQ(jetpack_number("6.1 (rev. 1)"), "6.1");
  EXPECT_EQ(jetpack_marker("6.1 (rev. 1)"), "REV1");
  EXPECT_EQ(jetpack_marker("6.1 (rev1)"), "REV1");
  EXPECT_EQ(jetpack_marker("7.0 GA"), "");
  EXPECT_EQ(jetpack_marker("5.0 PRE-DP"), "PREDP");
}

TEST(JetpackTable, MalformedTablesAreRefusedWithTheRow) {
  EXPECT_FALSE(JetpackTable::parse("").ok());
  EXPECT_FALSE(JetpackTable::parse(R"({"releases": []})").ok());
  auto bad_version = JetpackTable::parse(R"({"releases": [["36.4", ["6.1"], "ga", "x"]]})");
  ASSERT_FALSE(bad_version.ok());
  EXPECT_EQ(bad_version.error().where, "releases[0]");
  EXPECT_FALSE(JetpackTable::parse(R"({"releases": [["36.4.0", ["six"], "ga", "x"]]})").ok());
  EXPECT_FALSE(JetpackTable::parse(R"({"releases": [["36.4.0", [], "ga", "x"]]})").ok());
  EXPECT_FALSE(JetpackTable::parse(R"({"releases": [["36.4.0", ["6.1"], "bogus", "x"]]})").ok());
  EXPECT_FALSE(
      JetpackTable::parse(
          R"({"releases": [["36.4.0", ["6.1"], "ga", "x"], ["36.4.0", ["6.1"], "ga", "y"]]})")
          .ok());
  EXPECT_TRUE(JetpackTable::parse(R"({"releases": [["36.4.0", ["6.1"], "ga", "x"]]})").ok());
}

}  // namespace
}  // namespace jetgate::facts
