// `jetgate probe` end to end (the built binary): without a CUDA driver it
// says so and exits 0; with the fake driver the device shows up.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace jetgate {
namespace {

TEST(CudaCli, ProbeWithoutDriverSaysSoAndExitsZero) {
  test::CliRun r = test::run_jetgate({"probe"}, {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("no CUDA driver: "), std::string::npos) << r.out << r.err;
}

TEST(CudaCli, ProbeShowsTheFakeDevice) {
  test::CliRun r = test::run_jetgate({"probe"}, {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Fake Orin (jetgate test driver)"), std::string::npos) << r.out;
}

TEST(CudaCli, HangingDriverDoesNotHangProbe) {
  test::CliRun r = test::run_jetgate({"probe", "--probe-timeout", "1"},
                                     {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA,
                                      "FAKE_CUDA_MODE=hang"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("timed out"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace jetgate
