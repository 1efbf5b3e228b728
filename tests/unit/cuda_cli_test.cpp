// SPDX-License-Identifier: Apache-2.0
// `jetgate probe` end to end (the built binary): without a CUDA driver it
// says so and exits 0; with the fake driver the device shows up.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jetgate {
namespace {

TEST(CudaCli, ProbeWithoutDriverSaysSoAndExitsZero) {
  test::CliRun r = test::run_jetgate({"probe"}, {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("no CUDA driver: "), std::string::npos) << r.out << r.err;
}

TEST(CudaCli, ProbeShowsTheFakeDevice) {
  test::CliRun r =
      test::run_jetgate({"probe"}, {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Fake Orin (jetgate test driver)"), std::string::npos) << r.out;
}

TEST(CudaCli, HangingDriverDoesNotHangProbe) {
  test::CliRun r = test::run_jetgate(
      {"probe", "--probe-timeout", "1"},
      {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA, "FAKE_CUDA_MODE=hang"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("timed out"), std::string::npos) << r.out << r.err;
}

// `probe` alone is a report; asking for probes asks a question, and a probe
// that could not answer it does not hold (exit 1), whatever the reason.
TEST(CudaCli, ProbeCudaExitsOneWhenNothingCouldBeMeasured) {
  const std::string fake = std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA;
  struct Case {
    const char* name;
    std::vector<std::string> env;
    const char* expect;
  } cases[] = {
      {"no driver", {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"}, "SKIP"},
      {"no device", {fake, "FAKE_CUDA_MODE=no_device"}, "SKIP"},
      {"crashing driver", {fake, "FAKE_CUDA_MODE=crash"}, "SKIP"},
      {"hanging driver", {fake, "FAKE_CUDA_MODE=hang"}, "SKIP"},
  };
  for (const auto& c : cases) {
    test::CliRun r = test::run_jetgate({"probe", "--cuda", "--probe-timeout", "1"}, c.env);
    EXPECT_EQ(r.exit_code, 1) << c.name << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(std::string("does not hold: launch: ") + c.expect), std::string::npos)
        << c.name << "\n"
        << r.err;
    // The report itself is still written.
    EXPECT_NE(r.out.find("CUDA"), std::string::npos) << c.name;
  }
  test::CliRun plain =
      test::run_jetgate({"probe", "--probe-timeout", "1"}, {fake, "FAKE_CUDA_MODE=hang"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
}

// The fake driver "copies" at 524% of its theoretical peak: an impossible
// figure is a FAIL with the reason, never a PASS.
TEST(CudaCli, ImpossibleBandwidthFromTheFakeDriverFails) {
  test::CliRun r = test::run_jetgate({"probe", "--probe", "bandwidth", "--json"},
                                     {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out << r.err;
  const auto& bw = doc["probes"]["bandwidth"];
  if (bw["status"] == "NOT_RUN") GTEST_SKIP() << "built without GPU kernels";
  EXPECT_EQ(bw["status"], "FAIL") << bw.dump(2);
  EXPECT_EQ(bw["reason"].get<std::string>().rfind("implausible: ", 0), 0u) << bw["reason"];
  EXPECT_EQ(r.exit_code, 1);
}

}  // namespace
}  // namespace jetgate
