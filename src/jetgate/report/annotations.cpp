// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/annotations.hpp"

#include <cstdlib>

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

std::string escape(std::string_view s, bool property) {
  std::string out;
  for (char c : to_valid_utf8(s)) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string github_annotation(std::string_view level, std::string_view message,
                              std::string_view file, std::string_view title) {
  std::string props;
  if (!file.empty()) props += "file=" + escape(file, true);
  if (!title.empty()) props += (props.empty() ? "" : ",") + ("title=" + escape(title, true));
  return "::" + std::string(level) + (props.empty() ? "" : " " + props) +
         "::" + escape(message, false);
}

}  // namespace jetgate::report
