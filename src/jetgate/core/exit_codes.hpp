// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace jetgate {

// 0: ok; 1: the thing checked does not hold; 2: unusable input or usage.
inline constexpr int kExitOk = 0;
inline constexpr int kExitDoesNotHold = 1;
inline constexpr int kExitUsage = 2;

}  // namespace jetgate
