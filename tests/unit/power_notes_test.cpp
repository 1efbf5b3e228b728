// SPDX-License-Identifier: Apache-2.0
// A slow speed figure on a Jetson cites the power mode and clocks it was
// measured under, with the command that lifts them.
#include "jetgate/evidence/power_notes.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jetgate::evidence {
namespace {

using probes::ProbeResult;
using probes::ProbeStatus;

nlohmann::json platform_of(const std::string& fixture) {
  return nlohmann::json::parse(
      test::read_file(test::fixtures_dir() + "/" + fixture + "/expected.json"))["platform"];
}

ProbeResult result(const char* id, ProbeStatus st, const char* reason) {
  ProbeResult r;
  r.id = id;
  r.status = st;
  r.reason = reason;
  return r;
}

TEST(PowerNotes, LowFiguresOnABoardIn15WCiteTheModeAndTheFix) {
  probes::CudaSection s;
  s.probes = {result("bandwidth", ProbeStatus::warn, "device copy at 41% of the 102.4 GB/s peak."),
              result("decode", ProbeStatus::fail, "decode_fraction_of_bound 0.12 below 0.25."),
              result("launch", ProbeStatus::fail, "cuLaunchKernel failed"),
              result("sync_path", ProbeStatus::pass, "interrupt-driven")};
  cite_power_facts(s, platform_of("orin-nano-super-jp62-15w"));
  for (int i : {0, 1}) {
    EXPECT_NE(s.probes[i].reason.find("power mode 15W"), std::string::npos) << s.probes[i].reason;
    EXPECT_NE(s.probes[i].reason.find("sudo nvpmodel -m 2 && sudo jetson_clocks"),
              std::string::npos)
        << s.probes[i].reason;
  }
  EXPECT_EQ(s.probes[2].reason, "cuLaunchKernel failed");  // not a speed figure
  EXPECT_EQ(s.probes[3].reason, "interrupt-driven");       // a PASS needs no advice
  // Once only, however often it is applied.
  std::string once = s.probes[0].reason;
  cite_power_facts(s, platform_of("orin-nano-super-jp62-15w"));
  EXPECT_EQ(s.probes[0].reason, once);
}

TEST(PowerNotes, NoAdviceWithoutPowerFactsOrAtFullSpeed) {
  probes::CudaSection s;
  s.probes = {result("bandwidth", ProbeStatus::warn, "slow")};
  cite_power_facts(s, platform_of("x86-h200-dgpu"));
  EXPECT_EQ(s.probes[0].reason, "slow");
  cite_power_facts(s, nlohmann::json::object());
  EXPECT_EQ(s.probes[0].reason, "slow");
}

}  // namespace
}  // namespace jetgate::evidence
