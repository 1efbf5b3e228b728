// SPDX-License-Identifier: Apache-2.0
// The sanitizer that scrubs secrets, hosts and paths from issue bodies and summaries.
#include "fuzz_input.hpp"
#include "jetgate/report/sanitize.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const jetgate::report::SanitizeOptions options{
      {"jetson-01"}, {"runner"}, {"1423021054539"}};
  (void)jetgate::report::sanitize(jetgate::fuzz::text(data, size), options);
  return 0;
}
