// SPDX-License-Identifier: Apache-2.0
// Identifiers (digests, gate ids, evidence file names, device node paths,
// kernel releases, module names) compare by whole match, never by prefix:
// "/dev/nvhost-ctrl-gpu" is not "/dev/nvhost-ctrl", a kernel built for
// "5.15.148-tegra-rt" is not one for "5.15.148-tegra", and a digest shown
// by its first 12 digits is not the digest. Every identifier comparison in
// jetgate goes through these, so a near-miss test of each use pins them.
#pragma once

#include <string_view>

namespace jetgate {

// a and b are the same identifier: equal byte for byte, no prefix, no case folding.
bool same_identifier(std::string_view a, std::string_view b);

// The first field of text, up to the first byte of separators (the whole
// text when it has none), is id: a vermagic "5.15.148-tegra SMP preempt ..."
// names kernel release "5.15.148-tegra", never "5.15.148".
bool first_field_is(std::string_view text, std::string_view id,
                    std::string_view separators = " \t");

// A table's node path: "/dev/nvhost-ctrl" names that node only; one ending in
// '*' ("/dev/nvidia*") names the prefix followed by one or more digits
// ("/dev/nvidia0", not "/dev/nvidiactl" nor "/dev/nvidia").
bool node_path_matches(std::string_view pattern, std::string_view path);

}  // namespace jetgate
