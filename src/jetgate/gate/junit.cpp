#include "jetgate/gate/junit.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>

#include <fmt/format.h>
#include <pugixml.hpp>

#include "jetgate/fs/root_fs.hpp"

namespace jetgate::gate {
namespace {

constexpr const char* kHint = "the test command must write a complete JUnit XML report "
                              "(pytest --junitxml=PATH, GoogleTest --gtest_output=xml:PATH)";

// Nesting beyond this is not followed (a hostile report must not exhaust the stack).
constexpr int kMaxSuiteDepth = 64;

bool named(const pugi::xml_node& n, const char* name) { return std::string_view(n.name()) == name; }

// A missing attribute is 0; anything but a non-negative integer is an error.
Result<std::int64_t> count_attribute(const pugi::xml_node& suite, const char* name,
                                     const std::string& where) {
  auto attr = suite.attribute(name);
  if (!attr) return std::int64_t{0};
  std::string_view v = attr.value();
  std::int64_t n = -1;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0)
    return make_error(fmt::format("<testsuite {}=\"{}\"> is not a non-negative integer", name, v),
                      where, kHint);
  return n;
}

bool skipped_case(const pugi::xml_node& tc) {
  if (tc.child("skipped")) return true;
  std::string_view status = tc.attribute("status").value(), result = tc.attribute("result").value();
  return status == "notrun" || result == "skipped" || result == "suppressed";
}

JunitCounts count_cases(const pugi::xml_node& suite) {
  JunitCounts c;
  for (auto tc : suite.children("testcase")) {
    ++c.tests;
    if (tc.child("failure")) ++c.failures;
    else if (tc.child("error")) ++c.errors;
    else if (skipped_case(tc)) ++c.skipped;
  }
  return c;
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
  attrs.skipped += *disabled;
  return attrs;
}

void add(JunitCounts& total, const JunitCounts& c) {
  total.tests += c.tests;
  total.failures += c.failures;
  total.errors += c.errors;
  total.skipped += c.skipped;
  total.suites += c.suites;
}

// Counts a <testsuites>/<testsuite> element: its own <testcase>s (a suite may hold cases
// next to nested suites, and some tools put stray cases directly under <testsuites>) plus
// every nested suite. A node's own attributes are aggregates over what it holds, so the
// count never falls below them: a report whose attributes say "1 failure" is never clean.
Result<JunitCounts> count_tree(const pugi::xml_node& node, const std::string& where, int depth) {
  JunitCounts total = count_cases(node);
  if (depth < kMaxSuiteDepth) {
    for (auto child : node.children("testsuite")) {
      auto c = count_tree(child, where, depth + 1);
      if (!c) return c.error();
      add(total, *c);
    }
  }
  auto attrs = attribute_counts(node, where);
  if (!attrs) return attrs.error();
  total.tests = std::max(total.tests, attrs->tests);
  total.failures = std::max(total.failures, attrs->failures);
  total.errors = std::max(total.errors, attrs->errors);
  total.skipped = std::max(total.skipped, attrs->skipped);
  if (named(node, "testsuite")) total.suites += 1;
  return total;
}

}  // namespace

Result<JunitCounts> parse_junit_xml(std::string_view xml, const std::string& where) {
  if (xml.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return make_error("the JUnit XML report is empty", where, kHint);
  pugi::xml_document doc;
  auto parsed = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_auto);
  if (!parsed)
    return make_error(fmt::format("not well-formed XML at byte {}: {}", parsed.offset,
                                  parsed.description()),
                      where, kHint);
  auto root = doc.document_element();
  if (!named(root, "testsuites") && !named(root, "testsuite"))
    return make_error(fmt::format("root element <{}> is neither <testsuites> nor <testsuite>",
                                  root.name()),
                      where, kHint);
  if (!root.child("testsuite") && !root.child("testcase") && !named(root, "testsuite"))
    return make_error("no <testsuite> element in the report", where, kHint);
  return count_tree(root, where, 0);
}

Result<JunitCounts> read_junit_file(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  auto root = fs::RootFs::open(dir);
  if (!root) return make_error("the JUnit report's directory does not exist", path, kHint);
  auto text = root->read(p.filename().string(), kMaxJunitBytes);
  if (!text) return make_error("cannot read the JUnit report: " + text.error().what, path, kHint);
  return parse_junit_xml(*text, path);
}

}  // namespace jetgate::gate
