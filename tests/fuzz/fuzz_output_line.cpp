// SPDX-License-Identifier: Apache-2.0
// The workflow-command neutraliser (report/output_line): whatever a line
// holds, the line made safe for GitHub Actions starts no workflow command and
// holds no CR, LF or ESC. A violation aborts, so libFuzzer keeps the input.
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jetgate/report/output_line.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jetgate::report;
  std::string_view in = jetgate::fuzz::text(data, size);
  for (const OutputLineRules& rules :
       {OutputLineRules{true, true}, OutputLineRules{true, false}, OutputLineRules{false, true}}) {
    std::string out = safe_output_line(in, rules);
    if (rules.workflow_commands && starts_workflow_command(out)) std::abort();
    if (out.find_first_of("\r\n\x1b") != std::string::npos) {
      // Controls pass only when neither rule applies; a raw LF in the input is
      // a line the caller never gives (it splits at LF), but it too is escaped.
      std::abort();
    }
  }
  return 0;
}
