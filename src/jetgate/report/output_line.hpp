// SPDX-License-Identifier: Apache-2.0
// The last step of every line jetgate writes to stdout or stderr, whatever
// it carries: outside text (evidence reasons, file names, JUnit attributes, a
// test command's output, a usage error echoing an argument) must not become
// a GitHub Actions workflow command or reach a terminal as a control.
//
// The runner (github.com/actions/runner, src/Runner.Common/ActionCommand.cs)
// takes a line as a command when, after leading white space, it starts with
// "::" (::error, ::add-mask::, ::stop-commands::, ...), or when it holds
// "##[" anywhere (the older ##[command] form). A line that would is changed
// so that it cannot: the first ':' of a leading "::" becomes \u003a and the
// '[' of each "##[" becomes \u005b (both JSON escapes of the same character,
// so a JSON document stays the same document).
//
// Controls (core/utf8's terminal_safe): ESC, CR, the other C0 controls, DEL,
// C1 controls and bidi or zero-width characters take their visible form, so
// no line can move the cursor, overwrite itself or be reordered; tab stays.
#pragma once

#include <string>
#include <string_view>

namespace jetgate::report {

struct OutputLineRules {
  bool workflow_commands = false;  // neutralise workflow commands (jetgate's streams: always)
  bool controls = false;           // a terminal, pipe or runner's log: visible forms
};

// One line, without its '\n', made safe by the rules.
std::string safe_output_line(std::string_view line, const OutputLineRules& rules);

// Whether the runner would take this line as a workflow command.
bool starts_workflow_command(std::string_view line);

}  // namespace jetgate::report
