// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/output_line.hpp"

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

// .NET's char.IsWhiteSpace (what String.TrimStart removes): the runner skips
// these before it looks for "::".
bool is_dotnet_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

// Where the line's first character other than white space begins.
std::size_t first_non_space(std::string_view line) {
  std::size_t pos = 0;
  while (pos < line.size()) {
    Utf8Unit u = decode_utf8(line, pos);
    if (!u.valid || !is_dotnet_space(u.code_point)) break;
    pos += u.length;
  }
  return pos;
}

}  // namespace

bool starts_workflow_command(std::string_view line) {
  return line.substr(first_non_space(line)).rfind("::", 0) == 0 ||
         line.find("##[") != std::string_view::npos;
}

std::string safe_output_line(std::string_view line, const OutputLineRules& rules) {
  std::string out;
  out.reserve(line.size() + 8);
  // The runner also ends a line at CR: under GitHub Actions controls are
  // always shown in their visible form.
  if (rules.controls || rules.workflow_commands) {
    for (std::size_t pos = 0; pos < line.size();) {
      const Utf8Unit u = decode_utf8(line, pos);
      const std::string_view raw = line.substr(pos, u.length);
      pos += u.length;
      if (needs_visible_form(u) && !(u.valid && u.code_point == '\t'))
        append_visible_form(out, raw, u);
      else
        out += raw;
    }
  } else {
    out.assign(line);
  }
  if (!rules.workflow_commands) return out;
  // Escaping changes nothing the runner looks for, except that \u005b and
  // \u003a themselves hold no "::" or "##[": one pass is enough.
  std::string done;
  done.reserve(out.size() + 8);
  const std::size_t start = first_non_space(out);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (i == start && out.compare(i, 2, "::") == 0) {
      done += "\\u003a";
      continue;
    }
    if (out[i] == '[' && i >= 2 && out[i - 1] == '#' && out[i - 2] == '#') {
      done += "\\u005b";
      continue;
    }
    done += out[i];
  }
  return done;
}

}  // namespace jetgate::report
