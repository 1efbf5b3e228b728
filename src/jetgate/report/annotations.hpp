// SPDX-License-Identifier: Apache-2.0
// GitHub Actions workflow commands (::error / ::warning), printed when
// GITHUB_ACTIONS=true, so a failed gate or claim shows on the run's page and,
// with file=, beside the file it is about
// (https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions).
#pragma once

#include <string>
#include <string_view>

namespace jetgate::report {

// "::error file=README.md,title=jetgate support::message", one line: the
// message's %, CR and LF are escaped as GitHub documents (%25, %0D, %0A), and a
// property's also ':' and ',' (%3A, %2C); other controls, bidi and bytes that
// are not UTF-8 take core/utf8's visible form. level: "error", "warning" or
// "notice". The line goes out with cli's write_workflow_command, the one line
// jetgate writes past the workflow-command filter (report/output_line.hpp).
std::string github_annotation(std::string_view level, std::string_view message,
                              std::string_view file = {}, std::string_view title = {},
                              int line = 0);

}  // namespace jetgate::report
