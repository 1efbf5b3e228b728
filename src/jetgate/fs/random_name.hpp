// SPDX-License-Identifier: Apache-2.0
// The random part of the names both safe writers give their temporary files
// (atomic_write's DIR/.NAME.PID.HEX.tmp, write_in_place's recovery copy).
#pragma once

#include <string>

namespace jetgate::fs {

// `digits` lowercase hex digits (1 to 16) from a per-thread 64-bit generator
// seeded from std::random_device.
std::string random_hex(int digits);

}  // namespace jetgate::fs
