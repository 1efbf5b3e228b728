// SPDX-License-Identifier: Apache-2.0
// A JUnit XML report written by the gate's test command.
#include "fuzz_input.hpp"
#include "jetgate/gate/junit.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::gate::parse_junit_xml(jetgate::fuzz::text(data, size), "junit.xml");
  return 0;
}
