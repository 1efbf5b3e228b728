// A gate policy (ci/conditional-test-policy.json).
#include "fuzz_input.hpp"
#include "jetgate/gate/policy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::gate::parse_policy(jetgate::fuzz::text(data, size), "policy.json",
                                    "/nonexistent-repo");
  return 0;
}
