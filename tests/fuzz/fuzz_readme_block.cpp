// SPDX-License-Identifier: Apache-2.0
// The README's support block: found (read), then replaced (written).
#include "fuzz_input.hpp"
#include "jetgate/claims/readme_block.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto readme = jetgate::fuzz::text(data, size);
  auto span = jetgate::claims::find_support_block(readme, "README.md");
  if (span.ok()) (void)jetgate::claims::replace_block(readme, *span, "generated\n");
  return 0;
}
