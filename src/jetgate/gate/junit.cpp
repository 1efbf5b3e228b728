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

Result<JunitCounts> count_suite(const pugi::xml_node& suite, const std::string& where) {
  JunitCounts attrs;
  std::int64_t* fields[] = {&attrs.tests, &attrs.failures, &attrs.errors, &attrs.skipped};
  const char* names[] = {"tests", "failures", "errors", "skipped"};
  for (int i = 0; i < 4; ++i) {
    auto v = count_attribute(suite, names[i], where);
    if (!v) return v.error();
    *fields[i] = *v;
  }
  auto disabled = count_attribute(suite, "disabled", where);
  if (!disabled) return disabled.error();
  JunitCounts cases = count_cases(suite);
  JunitCounts out;
  out.suites = 1;
  out.tests = std::max(attrs.tests, cases.tests);
  out.failures = std::max(attrs.failures, cases.failures);
  out.errors = std::max(attrs.errors, cases.errors);
  out.skipped = std::max(attrs.skipped + *disabled, cases.skipped);
  return out;
}

// Leaf suites: <testsuite> elements without nested <testsuite> (some tools nest them).
void collect_leaf_suites(const pugi::xml_node& n, std::vector<pugi::xml_node>& out, int depth) {
  if (depth > 64) return;
  bool has_child_suite = false;
  for (auto child : n.children("testsuite")) {
    has_child_suite = true;
    collect_leaf_suites(child, out, depth + 1);
  }
  if (!has_child_suite && named(n, "testsuite")) out.push_back(n);
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
  std::vector<pugi::xml_node> suites;
  collect_leaf_suites(root, suites, 0);
  if (suites.empty()) return make_error("no <testsuite> element in the report", where, kHint);
  JunitCounts total;
  for (const auto& s : suites) {
    auto c = count_suite(s, where);
    if (!c) return c.error();
    total.tests += c->tests;
    total.failures += c->failures;
    total.errors += c->errors;
    total.skipped += c->skipped;
    total.suites += 1;
  }
  return total;
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
