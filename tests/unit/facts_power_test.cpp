// SPDX-License-Identifier: Apache-2.0
// Power mode and clocks: nvpmodel files, devfreq, and the advice a probe's
// reason cites when a figure is low.
#include <gtest/gtest.h>

#include "jetgate/facts/platform.hpp"
#include "jetgate/facts/power.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;
using namespace std::string_literals;

// The POWER_MODEL lines of the Orin Nano Super configuration as quoted in
// public notes (ids 0 15W, 1 25W, 2 MAXN_SUPER, 3 7W; the default is 2).
const char* kOrinNanoSuperConf =
    "# comment\n"
    "< PARAM TYPE=FILE NAME=EMC >\n"
    "MAX_FREQ /sys/kernel/nvpmodel_emc_cap/emc_iso_cap\n\n"
    "< POWER_MODEL ID=0 NAME=15W >\n"
    "CPU_ONLINE CORE_0 1\n"
    "GPU MAX_FREQ 612000000\n"
    "< POWER_MODEL ID=1 NAME=25W >\n"
    "< POWER_MODEL ID=2 NAME=MAXN_SUPER >\n"
    "< POWER_MODEL ID=3 NAME=7W >\n"
    "< PM_CONFIG DEFAULT=2 >\n";

TEST(Nvpmodel, ConfigModesDefaultAndFastest) {
  auto c = parse_nvpmodel_conf(kOrinNanoSuperConf);
  ASSERT_EQ(c.modes.size(), 4u);
  EXPECT_EQ(c.modes[2].name, "MAXN_SUPER");
  EXPECT_EQ(c.default_id, 2);
  ASSERT_NE(c.fastest(), nullptr);
  EXPECT_EQ(c.fastest()->id, 2) << "the fastest mode is not the highest id";

  // AGX Orin: MAXN is id 0 (mlcommons inference_results nvpmodel templates).
  auto agx = parse_nvpmodel_conf(
      "< POWER_MODEL ID=0 NAME=MAXN >\n< POWER_MODEL ID=1 NAME=15W >\n"
      "< POWER_MODEL ID=2 NAME=30W >\n< POWER_MODEL ID=3 NAME=50W >\n< PM_CONFIG DEFAULT=2 >\n");
  EXPECT_EQ(agx.fastest()->id, 0);
  // Modes named only by their wattage: the highest wins.
  auto watts =
      parse_nvpmodel_conf("< POWER_MODEL ID=0 NAME=10W >\n< POWER_MODEL ID=1 NAME=20W >\n");
  EXPECT_EQ(watts.fastest()->id, 1);
  // Xavier NX (JetPack 5): no MAXN; 20W modes, the 6-core one fastest.
  auto xnx = parse_nvpmodel_conf(
      "< POWER_MODEL ID=0 NAME=MODE_15W_2CORE >\n< POWER_MODEL ID=2 NAME=MODE_15W_6CORE >\n"
      "< POWER_MODEL ID=6 NAME=MODE_20W_2CORE >\n< POWER_MODEL ID=8 NAME=MODE_20W_6CORE >\n"
      "< POWER_MODEL ID=7 NAME=MODE_20W_4CORE >\n");
  EXPECT_EQ(xnx.fastest()->id, 8);
  EXPECT_FALSE(parse_nvpmodel_conf("").default_id);
  EXPECT_TRUE(
      parse_nvpmodel_conf("<POWER_MODEL>\n< POWER_MODEL ID=x NAME=y >\n\xff\xfe").modes.empty());
  EXPECT_EQ(parse_nvpmodel_conf("< POWER_MODEL ID=0 NAME=MAXN >\r\n< PM_CONFIG DEFAULT=0 >\r\n")
                .default_id,
            0);
}

TEST(Nvpmodel, StatusFile) {
  EXPECT_EQ(parse_nvpmodel_status("pmode:0002\n"), 2);
  EXPECT_EQ(parse_nvpmodel_status("pmode:0000 fmode:quiet\n"), 0);
  EXPECT_EQ(parse_nvpmodel_status("pmode:0001 fmode:fan_mode_quiet"), 1);
  EXPECT_FALSE(parse_nvpmodel_status(""));
  EXPECT_FALSE(parse_nvpmodel_status("pmode:\n"));
  EXPECT_FALSE(parse_nvpmodel_status("xpmode:0002"));
}

TEST(Sysfs, NumbersAndFrequencyTables) {
  EXPECT_EQ(parse_sysfs_integer("1300500000\n"), 1300500000);
  EXPECT_FALSE(parse_sysfs_integer("-1\n"));
  EXPECT_FALSE(parse_sysfs_integer("12 MHz"));
  EXPECT_FALSE(parse_sysfs_integer(""));
  EXPECT_FALSE(parse_sysfs_integer("99999999999999999999999"));
  EXPECT_EQ(highest_frequency("306000000 408000000 510000000 612000000 \n"), 612000000);
  EXPECT_FALSE(highest_frequency("garbage"));
}

json jetson(json power) {
  return {{"tegra", {{"is_tegra", true}}}, {"power", std::move(power)}};
}

TEST(PowerAdvice, LowPowerModeNamesTheModeTheClockAndTheCommand) {
  json p = jetson({{"nvpmodel",
                    {{"mode_id", 1},
                     {"mode_name", "15W"},
                     {"fastest_mode_id", 0},
                     {"fastest_mode_name", "MAXN"}}},
                   {"emc", {{"cur_hz", 2133000000}, {"max_hz", 3199000000}}},
                   {"jetson_clocks", {{"in_effect", true}}}});
  EXPECT_EQ(
      power_advice(p),
      "power mode 15W, EMC at 2133 of 3199 MHz: run `sudo nvpmodel -m 0 && sudo jetson_clocks`");
}

TEST(PowerAdvice, OrinNanoSuperFastestIsNotModeZero) {
  json p = jetson(
      {{"nvpmodel", {{"mode_id", 0}, {"mode_name", "15W"}, {"fastest_mode_id", 2}}},
       {"gpu", {{"cur_hz", 612000000}, {"max_hz", 612000000}, {"available_max_hz", 1020000000}}}});
  EXPECT_EQ(
      power_advice(p),
      "power mode 15W, GPU at 612 of 1020 MHz: run `sudo nvpmodel -m 2 && sudo jetson_clocks`");
}

TEST(PowerAdvice, FastestModeWithoutJetsonClocks) {
  json p = jetson({{"nvpmodel", {{"mode_id", 0}, {"mode_name", "MAXN"}, {"fastest_mode_id", 0}}},
                   {"gpu", {{"cur_hz", 306000000}, {"max_hz", 1300500000}}},
                   {"jetson_clocks", {{"in_effect", false}}}});
  EXPECT_EQ(power_advice(p), "GPU at 306 of 1301 MHz: run `sudo jetson_clocks`");
  p["power"].erase("gpu");
  EXPECT_EQ(power_advice(p), "jetson_clocks not in effect: run `sudo jetson_clocks`");
}

TEST(PowerAdvice, NothingToSayWhenFastOrUnknown) {
  json fast = jetson({{"nvpmodel", {{"mode_id", 0}, {"mode_name", "MAXN"}, {"fastest_mode_id", 0}}},
                      {"emc", {{"cur_hz", 3199000000}, {"max_hz", 3199000000}}},
                      {"gpu", {{"cur_hz", 1300500000}, {"max_hz", 1300500000}}},
                      {"jetson_clocks", {{"in_effect", true}}}});
  EXPECT_FALSE(power_advice(fast));
  EXPECT_FALSE(power_advice(json::object()));
  EXPECT_FALSE(power_advice(json{{"tegra", {{"is_tegra", false}}}}));
  EXPECT_FALSE(power_advice(jetson(nullptr)));
  EXPECT_FALSE(power_advice(jetson({{"nvpmodel", "junk"}, {"emc", {{"cur_hz", "2133"}}}})));
}

PlatformReport collect(const test::TempDir& t) {
  auto root = fs::RootFs::open(t.dir());
  EXPECT_TRUE(root.ok());
  return collect_platform(*root, {});
}

TEST(PowerFacts, FromRecordedFiles) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3\n");
  t.write("etc/nvpmodel.conf", kOrinNanoSuperConf);
  t.write("var/lib/nvpmodel/status", "pmode:0000\n");
  t.write("sys/class/devfreq/17000000.gpu/cur_freq", "612000000\n");
  t.write("sys/class/devfreq/17000000.gpu/min_freq", "612000000\n");
  t.write("sys/class/devfreq/17000000.gpu/max_freq", "612000000\n");
  t.write("sys/class/devfreq/17000000.gpu/available_frequencies",
          "306000000 612000000 1020000000\n");
  t.write("sys/kernel/debug/bpmp/debug/clk/emc/rate", "3199000000\n");
  t.write("sys/kernel/debug/bpmp/debug/clk/emc/max_rate", "3199000000\n");
  auto r = collect(t);
  const auto& pw = r.platform["power"];
  EXPECT_EQ(pw["nvpmodel"]["mode_id"], 0);
  EXPECT_EQ(pw["nvpmodel"]["mode_name"], "15W");
  EXPECT_EQ(pw["nvpmodel"]["fastest_mode_id"], 2);
  EXPECT_EQ(pw["nvpmodel"]["default_mode_name"], "MAXN_SUPER");
  EXPECT_EQ(pw["gpu"]["available_max_hz"], 1020000000);
  EXPECT_EQ(pw["jetson_clocks"]["in_effect"], true);
  EXPECT_EQ(pw["emc"]["cur_hz"], 3199000000LL);
  EXPECT_EQ(
      power_advice(r.platform),
      "power mode 15W, GPU at 612 of 1020 MHz: run `sudo nvpmodel -m 2 && sudo jetson_clocks`");
}

TEST(PowerFacts, DefaultModeWithoutStatusAndNullsWithoutFiles) {
  test::TempDir t;
  t.write("etc/nvpmodel.conf", kOrinNanoSuperConf);
  auto r = collect(t);
  EXPECT_EQ(r.platform["power"]["nvpmodel"]["mode_id"], 2);
  EXPECT_NE(
      r.platform["power"]["nvpmodel"]["mode_source"].get<std::string>().find("PM_CONFIG DEFAULT"),
      std::string::npos);
  test::TempDir empty;
  auto e = collect(empty);
  EXPECT_TRUE(e.platform["power"]["nvpmodel"].is_null());
  EXPECT_TRUE(e.platform["power"]["gpu"].is_null());
  EXPECT_TRUE(e.platform["power"]["emc"].is_null());
  EXPECT_TRUE(e.platform["power"]["jetson_clocks"]["in_effect"].is_null());
}

TEST(PowerFacts, GarbageFilesGiveNullsAndWarnings) {
  test::TempDir t;
  t.write("etc/nvpmodel.conf",
          "\x7f"
          "ELF\x02\x01"s);
  t.write("var/lib/nvpmodel/status", "pmode:\n");
  t.write("sys/class/devfreq/57000000.gpu/cur_freq", "lots\n");
  auto r = collect(t);
  EXPECT_TRUE(r.platform["power"]["nvpmodel"].is_null());
  EXPECT_TRUE(r.platform["power"]["gpu"]["cur_hz"].is_null());
  bool warned = false;
  for (const auto& w : r.warnings) warned = warned || w.fact == "/platform/power/nvpmodel";
  EXPECT_TRUE(warned);
}

}  // namespace
}  // namespace jetgate::facts
