// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/junit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <pugixml.hpp>
#include <vector>

#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::gate {
namespace {

constexpr const char* kHint =
    "the test command must write a complete JUnit XML report "
    "(pytest --junitxml=PATH, GoogleTest --gtest_output=xml:PATH)";
constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

bool named(const pugi::xml_node& n, const char* name) {
  return std::string_view(n.name()) == name;
}

// Quoted from the report into a message: valid UTF-8, and short.
std::string shown(std::string_view text) {
  constexpr std::size_t kMax = 80;
  std::string out = to_valid_utf8(text.substr(0, kMax));
  if (text.size() > kMax) out += "...";
  return out;
}

std::int64_t add_counts_saturating(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kMaxCount : sum;
}

void add(JunitCounts& total, const JunitCounts& c) {
  total.tests = add_counts_saturating(total.tests, c.tests);
  total.failures = add_counts_saturating(total.failures, c.failures);
  total.errors = add_counts_saturating(total.errors, c.errors);
  total.skipped = add_counts_saturating(total.skipped, c.skipped);
  total.suites =
      total.suites == std::numeric_limits<int>::max() ? total.suites : total.suites + c.suites;
}

// A missing attribute is 0; anything but a non-negative integer that fits in
// 63 bits is an error (never a wrapped value).
Result<std::int64_t> count_attribute(const pugi::xml_node& node, const char* name,
                                     const std::string& where) {
  auto attr = node.attribute(name);
  if (!attr) return std::int64_t{0};
  std::string_view v = attr.value();
  std::int64_t n = -1;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range)
    return make_error(fmt::format("<{} {}=\"{}\"> is too large (the limit is {})",
                                  shown(node.name()), name, shown(v), kMaxCount),
                      where, kHint);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0)
    return make_error(fmt::format("<{} {}=\"{}\"> is not a non-negative integer",
                                  shown(node.name()), name, shown(v)),
                      where, kHint);
  return n;
}

Result<JunitCounts> attribute_counts(const pugi::xml_node& node, const std::string& where) {
  JunitCounts attrs;
  std::int64_t* fields[] = {&attrs.tests, &attrs.failures, &attrs.errors, &attrs.skipped};
  const char* names[] = {"tests", "failures", "errors", "skipped"};
  for (int i = 0; i < 4; ++i) {
    auto v = count_attribute(node, names[i], where);
    if (!v) return v.error();
    *fields[i] = *v;
  }
  auto disabled = count_attribute(node, "disabled", where);
  if (!disabled) return disabled.error();
  attrs.skipped = add_counts_saturating(attrs.skipped, *disabled);
  return attrs;
}

bool skipped_case(const pugi::xml_node& tc) {
  if (tc.child("skipped")) return true;
  std::string_view status = tc.attribute("status").value(), result = tc.attribute("result").value();
  return status == "notrun" || result == "skipped" || result == "suppressed";
}

JunitCounts own_case(const pugi::xml_node& tc) {
  JunitCounts c;
  c.tests = 1;
  if (tc.child("failure"))
    c.failures = 1;
  else if (tc.child("error"))
    c.errors = 1;
  else if (skipped_case(tc))
    c.skipped = 1;
  return c;
}

// What one element contributes, given the sum over its child elements.
Result<JunitCounts> finish_element(const pugi::xml_node& node, JunitCounts sum,
                                   const std::string& where) {
  if (named(node, "testcase")) {
    add(sum, own_case(node));
    return sum;
  }
  if (!named(node, "testsuite") && !named(node, "testsuites")) return sum;
  auto attrs = attribute_counts(node, where);
  if (!attrs) return attrs.error();
  sum.tests = std::max(sum.tests, attrs->tests);
  sum.failures = std::max(sum.failures, attrs->failures);
  sum.errors = std::max(sum.errors, attrs->errors);
  sum.skipped = std::max(sum.skipped, attrs->skipped);
  if (named(node, "testsuite")) {
    JunitCounts one_suite;
    one_suite.suites = 1;
    add(sum, one_suite);
  }
  return sum;
}

pugi::xml_node next_element(pugi::xml_node n) {
  while (n && n.type() != pugi::node_element) n = n.next_sibling();
  return n;
}

std::string first_line(std::string_view text, std::size_t max_bytes) {
  text = text.substr(0, text.find_first_of("\r\n"));
  return to_valid_utf8(text.substr(0, max_bytes));
}

void list_case(const pugi::xml_node& tc, std::vector<JunitCase>& out) {
  if (out.size() >= kMaxListedCases) return;
  pugi::xml_node why;
  const char* outcome = nullptr;
  if ((why = tc.child("failure")))
    outcome = "failure";
  else if ((why = tc.child("error")))
    outcome = "error";
  else if (skipped_case(tc))
    outcome = "skipped", why = tc.child("skipped");
  if (!outcome) return;
  std::string cls = tc.attribute("classname").value(), name = tc.attribute("name").value();
  std::string full = cls.empty() ? name : cls + "." + name;
  out.push_back({first_line(full, 200), outcome,
                 why ? first_line(why.attribute("message").value(), 200) : ""});
}

struct Frame {
  pugi::xml_node node;
  pugi::xml_node next_child;  // the next child element still to visit
  JunitCounts sum;            // over the children visited so far
};

// Post-order walk over every element below (and including) root.
Result<JunitCounts> count_document(const pugi::xml_node& root, const std::string& where,
                                   std::int64_t* cases_seen, std::vector<JunitCase>& not_passed) {
  std::vector<Frame> stack;
  stack.push_back({root, next_element(root.first_child()), {}});
  for (;;) {
    if (pugi::xml_node child = stack.back().next_child) {
      stack.back().next_child = next_element(child.next_sibling());
      if (named(child, "testcase")) {
        ++*cases_seen;
        list_case(child, not_passed);
      }
      stack.push_back({child, next_element(child.first_child()), {}});
      continue;
    }
    auto done = finish_element(stack.back().node, stack.back().sum, where);
    if (!done) return done.error();
    stack.pop_back();
    if (stack.empty()) return *done;
    add(stack.back().sum, *done);
  }
}

}  // namespace

Result<JunitCounts> parse_junit_xml(std::string_view xml, const std::string& where_raw) {
  const std::string where = to_valid_utf8(where_raw);
  if (xml.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return make_error("the JUnit XML report is empty", where, kHint);
  pugi::xml_document doc;
  // parse_fragment keeps text outside the root element, so it can be refused below.
  auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_fragment,
                                pugi::encoding_auto);
  if (!parsed)
    return make_error(
        fmt::format("not well-formed XML at byte {}: {}", parsed.offset, parsed.description()),
        where, kHint);
  // XML allows one root element and nothing but markup around it; pugixml
  // reads on past it. A second root (another <testsuite> holding the
  // failures) or text after it would go uncounted: refused, never a pass.
  if (!doc.document_element())
    return make_error("not well-formed XML: there is no root element", where, kHint);
  int roots = 0;
  for (pugi::xml_node n = doc.first_child(); n; n = n.next_sibling()) {
    const auto type = n.type();
    if (type == pugi::node_element && ++roots == 1) continue;
    if (type == pugi::node_declaration || type == pugi::node_comment || type == pugi::node_pi ||
        type == pugi::node_doctype)
      continue;
    return make_error(type == pugi::node_element
                          ? fmt::format("a second root element <{}> after the first: XML has one",
                                        shown(n.name()))
                          : std::string("text outside the root element"),
                      where, kHint);
  }
  auto root = doc.document_element();
  if (!named(root, "testsuites") && !named(root, "testsuite"))
    return make_error(fmt::format("root element <{}> is neither <testsuites> nor <testsuite>",
                                  shown(root.name())),
                      where, kHint);
  std::int64_t cases_seen = 0;
  std::vector<JunitCase> not_passed;
  auto counts = count_document(root, where, &cases_seen, not_passed);
  if (!counts) return counts;
  counts->not_passed = std::move(not_passed);
  if (named(root, "testsuites") && counts->suites == 0 && cases_seen == 0)
    return make_error("no <testsuite> element in the report", where, kHint);
  return counts;
}

Result<JunitCounts> read_junit_file(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  const std::string where = to_valid_utf8(path);
  auto root = fs::RootFs::open(dir);
  if (!root) return make_error("the JUnit report's directory does not exist", where, kHint);
  auto text = root->read(p.filename().string(), kMaxJunitBytes);
  if (!text)
    return make_error("cannot read the JUnit report: " + to_valid_utf8(text.error().what), where,
                      kHint);
  return parse_junit_xml(*text, path);
}

}  // namespace jetgate::gate
