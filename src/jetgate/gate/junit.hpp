// SPDX-License-Identifier: Apache-2.0
// JUnit XML as pytest (--junitxml) and GoogleTest (--gtest_output=xml) write
// it, read with pugixml. Every <testcase> in the document counts, wherever it
// sits: in a <testsuite> at any depth, in a nested <testsuites>, directly
// under the root, or inside an element jetgate does not know. The walk uses
// an explicit stack, so no nesting depth can exhaust jetgate's own stack.
//
// At every <testsuite> and <testsuites> jetgate takes, per count, the larger
// of the element's attribute and what its cases and nested elements show, so
// a report that understates its failures or skips (or a crashed run whose
// attributes lag) never makes a gate look greener than the test cases do.
// Counts saturate at INT64_MAX instead of wrapping; an attribute that is not
// a non-negative integer below 2^63 is an error.
//
// A test case counts as: failure (<failure>), error (<error>), skipped
// (<skipped>, which includes pytest's xfail: <skipped type="pytest.xfail">;
// or GoogleTest's status="notrun" / result="skipped"|"suppressed" for
// disabled and skipped tests). GoogleTest's "disabled" attribute counts as
// skipped: a disabled test is a test that did not run.
//
// Names and values quoted in error messages are valid UTF-8 (bytes that are
// not become U+FFFD), so a hostile report cannot break the evidence JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::gate {

// A test case that did not pass, for the one-line-per-test report.
struct JunitCase {
  std::string name;     // "classname.name" (or "name"), valid UTF-8
  std::string outcome;  // "failure", "error" or "skipped"
  std::string message;  // the first line of its message attribute, cut to 200 bytes
};

inline constexpr std::size_t kMaxListedCases = 50;

struct JunitCounts {
  std::int64_t tests = 0, failures = 0, errors = 0, skipped = 0;
  int suites = 0;
  // The first kMaxListedCases cases that failed, errored or were skipped, in document order.
  std::vector<JunitCase> not_passed;
  bool clean() const { return tests > 0 && failures == 0 && errors == 0 && skipped == 0; }
};

inline constexpr std::size_t kMaxJunitBytes = 64u << 20;

// `where` names the file in errors.
Result<JunitCounts> parse_junit_xml(std::string_view xml, const std::string& where);
Result<JunitCounts> read_junit_file(const std::string& path);

}  // namespace jetgate::gate
