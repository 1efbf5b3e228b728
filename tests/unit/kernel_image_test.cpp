// SPDX-License-Identifier: Apache-2.0
// The kernels embedded in the binary are exactly the fatbin nvcc built: a cross
// build (aarch64) or a secondary build reusing another build's fatbin must not
// embed a different or truncated image.
#include "jetgate/cuda/kernel_image.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "test_support.hpp"

namespace jetgate {
namespace {

TEST(KernelImage, EmbedsTheFatbinNvccBuiltByteForByte) {
#ifndef JETGATE_KERNEL_FATBIN
  ASSERT_FALSE(cuda::kernel_image().present()) << "kernels embedded, but the build named no fatbin";
  GTEST_SKIP() << "built without the CUDA toolkit";
#else
  const auto image = cuda::kernel_image();
  ASSERT_TRUE(image.present());
  const std::string fatbin = test::read_file(JETGATE_KERNEL_FATBIN);
  ASSERT_FALSE(fatbin.empty()) << "cannot read " << JETGATE_KERNEL_FATBIN;
  ASSERT_EQ(image.size, fatbin.size());
  EXPECT_EQ(std::memcmp(image.data, fatbin.data(), fatbin.size()), 0);
  EXPECT_STREQ(image.archs, JETGATE_KERNEL_ARCHS);
  // cuModuleLoadData wants the fatbin 8-byte aligned; an ABI with other rules for
  // unsigned char arrays must not undo the alignas.
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(image.data) % 8, 0u);
#endif
}

// Orin (sm_87) and Thor (sm_110, CUDA 13 and later) are the Jetsons jetgate exists for.
TEST(KernelImage, HasMachineCodeForOrinAndThor) {
  const auto image = cuda::kernel_image();
  if (!image.present()) GTEST_SKIP() << "built without the CUDA toolkit";
  const std::string archs = std::string(",") + image.archs + ",";
  EXPECT_NE(archs.find(",87,"), std::string::npos) << image.archs;
  if (std::stoi(image.toolkit_version) >= 13) {
    EXPECT_NE(archs.find(",110,"), std::string::npos) << image.archs;
  }
}

}  // namespace
}  // namespace jetgate
