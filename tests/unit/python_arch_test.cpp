// SPDX-License-Identifier: Apache-2.0
// What torch.cuda.get_arch_list() allows on a GPU, by CUDA's compatibility
// rules (python_runtime_arch.hpp). Arch lists as torch builds report them:
// NVIDIA's JetPack 6 wheel (sm_87), JetPack 5 era wheels (sm_72, sm_87), the
// aarch64 SBSA wheel of https://github.com/OpenRAL/openral/pull/167
// (sm_80 .. sm_120), suffixed entries as in
// https://github.com/turboderp-org/exllamav3/pull/125 (sm_90a, sm_120a).
#include <gtest/gtest.h>

#include "jetgate/probes/python_runtime_arch.hpp"

namespace jetgate::probes {
namespace {

constexpr ComputeCapability kOrin{8, 7}, kXavier{7, 2}, kNano{5, 3}, kH200{9, 0}, kA10{8, 6},
    kThor{11, 0};

ArchCoverage covers(std::vector<std::string> list, ComputeCapability c, bool tegra) {
  return arch_coverage(list, c, tegra);
}

TEST(PythonArch, ParsesCapabilities) {
  auto c = parse_capability("8.7");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->major, 8);
  EXPECT_EQ(c->minor, 7);
  EXPECT_EQ(parse_capability("12.1")->major, 12);
  for (const char* bad : {"", "8", "8.", ".7", "8.7.1", "x.y", "8,7", "123.1", "-8.7"})
    EXPECT_FALSE(parse_capability(bad).has_value()) << bad;
}

TEST(PythonArch, TegraCapabilities) {
  for (auto c : {kOrin, kXavier, kNano, ComputeCapability{6, 2}, ComputeCapability{10, 1}, kThor})
    EXPECT_TRUE(is_tegra_capability(c)) << c.major << "." << c.minor;
  for (auto c : {kH200, kA10, ComputeCapability{12, 1}, ComputeCapability{8, 0}})
    EXPECT_FALSE(is_tegra_capability(c)) << c.major << "." << c.minor;
}

TEST(PythonArch, TheExactCubinRunsEverywhere) {
  auto a = covers({"sm_87"}, kOrin, true);
  EXPECT_EQ(a.match, ArchMatch::sass);
  EXPECT_EQ(a.entry, "sm_87");
  EXPECT_EQ(covers({"sm_72", "sm_87"}, kXavier, true).entry, "sm_72");
  EXPECT_EQ(covers({"sm_53", "sm_62", "sm_72"}, kNano, true).entry, "sm_53");
  EXPECT_EQ(covers({"sm_90"}, kH200, false).match, ArchMatch::sass);
}

TEST(PythonArch, AnOlderMinorCubinRunsOnDesktopGpusOnly) {
  auto desktop = covers({"sm_80"}, kA10, false);
  EXPECT_EQ(desktop.match, ArchMatch::sass);
  EXPECT_EQ(desktop.entry, "sm_80");
  // CUDA C++ Programming Guide: binary compatibility is not supported for Tegra.
  auto orin = covers({"sm_80", "sm_86", "sm_90"}, kOrin, true);
  EXPECT_EQ(orin.match, ArchMatch::none);
  EXPECT_EQ(orin.tegra_miss, "sm_86");
  // The newest compatible cubin is the one the runtime loads.
  EXPECT_EQ(covers({"sm_80", "sm_86"}, ComputeCapability{8, 9}, false).entry, "sm_86");
}

TEST(PythonArch, NoCubinRunsAcrossMajors) {
  EXPECT_EQ(covers({"sm_80", "sm_86"}, kH200, false).match, ArchMatch::none);
  EXPECT_EQ(covers({"sm_90"}, kA10, false).match, ArchMatch::none);
  EXPECT_EQ(covers({"sm_80", "sm_90", "sm_100", "sm_120"}, kThor, true).match, ArchMatch::none);
}

TEST(PythonArch, PtxRunsOnItsCapabilityAndNewer) {
  auto a = covers({"sm_72", "compute_72"}, kOrin, true);
  EXPECT_EQ(a.match, ArchMatch::ptx);
  EXPECT_EQ(a.entry, "compute_72");
  EXPECT_EQ(covers({"compute_50", "compute_80"}, kOrin, true).entry, "compute_80");
  EXPECT_EQ(covers({"sm_90", "compute_90"}, kOrin, true).match, ArchMatch::none);
  EXPECT_EQ(covers({"compute_87"}, kOrin, true).match, ArchMatch::ptx);
  EXPECT_EQ(covers({"sm_80", "compute_80"}, kH200, false).entry, "compute_80");
  // A cubin wins over PTX.
  EXPECT_EQ(covers({"compute_80", "sm_87"}, kOrin, true).match, ArchMatch::sass);
}

TEST(PythonArch, ArchSpecificEntriesRunOnTheirCapabilityOnly) {
  EXPECT_EQ(covers({"sm_90a"}, kH200, false).match, ArchMatch::sass);
  EXPECT_EQ(covers({"sm_90a"}, ComputeCapability{9, 1}, false).match, ArchMatch::none);
  EXPECT_EQ(covers({"compute_90a"}, ComputeCapability{10, 0}, false).match, ArchMatch::none);
  EXPECT_EQ(covers({"compute_90a"}, kH200, false).match, ArchMatch::ptx);
  EXPECT_EQ(covers({"sm_100f"}, ComputeCapability{10, 3}, false).match, ArchMatch::sass);
  EXPECT_EQ(covers({"compute_100f"}, ComputeCapability{12, 0}, false).match, ArchMatch::none);
  EXPECT_EQ(covers({"sm_120a", "sm_120"}, ComputeCapability{12, 1}, false).entry, "sm_120");
}

TEST(PythonArch, AListWithNothingRecognisableIsUnknown) {
  EXPECT_EQ(covers({}, kOrin, true).match, ArchMatch::unknown);
  EXPECT_EQ(covers({"gfx90a", "gfx942"}, kH200, false).match, ArchMatch::unknown);
  for (const char* odd : {"sm_", "sm_8", "sm_1000", "sm_87b", "compute_x7", "SM_87", " sm_87"})
    EXPECT_EQ(covers({odd}, kOrin, true).match, ArchMatch::unknown) << odd;
  // Odd entries beside real ones do not hide them.
  EXPECT_EQ(covers({"gfx90a", "sm_87"}, kOrin, true).match, ArchMatch::sass);
}

TEST(PythonArch, NamesTheMatch) {
  EXPECT_STREQ(to_string(ArchMatch::sass), "sass");
  EXPECT_STREQ(to_string(ArchMatch::ptx), "ptx");
  EXPECT_STREQ(to_string(ArchMatch::none), "none");
  EXPECT_STREQ(to_string(ArchMatch::unknown), "unknown");
}

}  // namespace
}  // namespace jetgate::probes
