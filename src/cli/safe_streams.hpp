// SPDX-License-Identifier: Apache-2.0
// std::cout and std::cerr, line by line, through report::safe_output_line:
// no line can start a workflow command and no control passes, wherever
// jetgate runs (the runner may read it through docker, sudo or ssh, which
// drop GITHUB_ACTIONS, or a file a later step prints). Everything jetgate
// and CLI11 print goes through them, so no caller can forget. jetgate's own
// workflow commands (annotations) are the one exception and are written with
// write_workflow_command.
#pragma once

#include <iosfwd>
#include <string_view>

namespace jetgate::cli {

// Installs the filters; the pending text is flushed and the streams restored
// when it goes.
class SafeStreams {
 public:
  SafeStreams();
  ~SafeStreams();
  SafeStreams(const SafeStreams&) = delete;
  SafeStreams& operator=(const SafeStreams&) = delete;
};

// Writes line (a workflow command jetgate built, its data escaped by
// report::github_annotation) and a newline to os, past the filter.
void write_workflow_command(std::ostream& os, std::string_view line);

}  // namespace jetgate::cli
