// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/junit_xml.hpp"

#include <pugixml.hpp>
#include <sstream>

#include "jetgate/core/utf8.hpp"
#include "jetgate/report/output_line.hpp"

namespace jetgate::report {
namespace {

// XML 1.0's Char (https://www.w3.org/TR/xml/#charsets): tab, LF, CR,
// U+0020-U+D7FF, U+E000-U+FFFD and U+10000 up. Anything else (a control
// character, the noncharacters U+FFFE and U+FFFF) would make the document
// unreadable to every parser, so it becomes '?'; bytes that are not UTF-8
// become U+FFFD first.
bool is_xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

// Text in the report is outside text (evidence reasons, test names, file
// names), and reporters copy it into CI logs and annotations: controls (CR,
// LF, ESC, C1, bidi, zero-width) take their visible form and it cannot start
// a workflow command (report/output_line), so the report is one inert line
// per field whatever a pull request put in it.
std::string xml_text(std::string_view s) {
  const std::string valid =
      safe_output_line(to_valid_utf8(s), OutputLineRules{/*workflow_commands=*/true,
                                                         /*controls=*/true});
  std::string out;
  out.reserve(valid.size());
  for (std::size_t pos = 0; pos < valid.size();) {
    const Utf8Unit u = decode_utf8(valid, pos);
    if (is_xml_char(u.code_point))
      out.append(valid, pos, u.length);
    else
      out += '?';
    pos += u.length;
  }
  return out;
}

std::string reason(const JunitTestCase& c) {
  std::string out = c.message.empty() ? std::string(to_string(c.status)) : c.message;
  if (!c.next.empty()) out += " (next: " + c.next + ")";
  return out;
}

}  // namespace

std::string render_junit_xml(const JunitSuite& suite) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto root = doc.append_child("testsuites");
  auto ts = root.append_child("testsuite");
  int failures = 0, skipped = 0;
  for (const auto& c : suite.cases) {
    auto tc = ts.append_child("testcase");
    tc.append_attribute("classname") = xml_text(c.classname).c_str();
    tc.append_attribute("name") = xml_text(c.name).c_str();
    const std::string text = xml_text(reason(c));
    if (c.status == Outcome::fail) {
      ++failures;
      auto f = tc.append_child("failure");
      f.append_attribute("message") = text.c_str();
      f.text().set(text.c_str());
    } else if (c.status == Outcome::skip || c.status == Outcome::not_run) {
      ++skipped;
      tc.append_child("skipped").append_attribute("message") = text.c_str();
    } else if (!c.message.empty()) {
      tc.append_child("system-out").text().set(text.c_str());
    }
  }
  for (auto* n : {&root, &ts}) {
    n->append_attribute("tests") = static_cast<long long>(suite.cases.size());
    n->append_attribute("failures") = failures;
    n->append_attribute("errors") = 0;
    n->append_attribute("skipped") = skipped;
  }
  root.prepend_attribute("name") = xml_text(suite.name).c_str();
  ts.prepend_attribute("name") = xml_text(suite.name).c_str();
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

JunitSuite run_junit(const std::string& gate, const std::vector<gate::CheckRow>& rows) {
  JunitSuite s{"jetgate run " + gate, {}};
  for (const auto& r : rows)
    s.cases.push_back(
        {"jetgate.run." + gate + "." + r.kind, r.kind + " " + r.name, r.status, r.detail, r.next});
  return s;
}

JunitSuite check_junit(const claims::CheckResult& result) {
  JunitSuite s{"jetgate check", {}};
  auto violations_of = [&](const std::string& gate) {
    JunitTestCase c{"jetgate.check", gate, Outcome::pass, "", ""};
    for (const auto& v : result.violations) {
      if (v.gate != gate) continue;
      c.status = Outcome::fail;
      c.message += (c.message.empty() ? "" : "; ") + v.what;
      if (c.next.empty()) c.next = v.next;
    }
    return c;
  };
  auto policy = violations_of("policy");
  policy.name = "policy";
  s.cases.push_back(policy);
  for (const auto& g : result.gates) {
    auto c = violations_of(g.gate);
    if (c.status == Outcome::pass && g.status != Outcome::pass) {
      c.status = g.status;
      c.message = "gate " + g.state;
    }
    s.cases.push_back(c);
  }
  return s;
}

JunitSuite probe_junit(const std::vector<probes::ProbeResult>& results) {
  JunitSuite s{"jetgate probe", {}};
  for (const auto& r : results)
    s.cases.push_back({"jetgate.probe", r.id, r.status, r.reason, r.next});
  return s;
}

}  // namespace jetgate::report
