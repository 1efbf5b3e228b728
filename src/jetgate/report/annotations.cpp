// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/annotations.hpp"

#include <cstdlib>

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

std::string escape(std::string_view s, bool property) {
  std::string out;
  for (std::size_t pos = 0; pos < s.size();) {
    const Utf8Unit u = decode_utf8(s, pos);
    const std::string_view raw = s.substr(pos, u.length);
    pos += u.length;
    const char c = raw.size() == 1 ? raw[0] : '\0';
    if (c == '%') {
      out += "%25";
    } else if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else if (property && c == ':') {
      out += "%3A";
    } else if (property && c == ',') {
      out += "%2C";
    } else if (c == '[' && out.size() >= 2 && out.compare(out.size() - 2, 2, "##") == 0) {
      out += "\\u005b";  // the runner's older ##[command] form (report/output_line)
    } else if (needs_visible_form(u) && c != '\t') {
      // An annotation shows in the log too: no control reaches it.
      append_visible_form(out, raw, u);
    } else {
      out += raw;
    }
  }
  return out;
}

}  // namespace

std::string github_annotation(std::string_view level, std::string_view message,
                              std::string_view file, std::string_view title, int line) {
  std::string props;
  if (!file.empty()) props += "file=" + escape(file, true);
  if (!file.empty() && line > 0) props += ",line=" + std::to_string(line);
  if (!title.empty()) props += (props.empty() ? "" : ",") + ("title=" + escape(title, true));
  return "::" + std::string(level) + (props.empty() ? "" : " " + props) +
         "::" + escape(message, false);
}

}  // namespace jetgate::report
