// SPDX-License-Identifier: Apache-2.0
// A gate policy (ci/conditional-test-policy.json).
#include "fuzz_input.hpp"
#include "jetgate/policy/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::policy::parse_policy(jetgate::fuzz::text(data, size), "policy.json",
                                      "/nonexistent-repo");
  return 0;
}
