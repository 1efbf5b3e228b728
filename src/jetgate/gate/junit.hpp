// JUnit XML as pytest (--junitxml) and GoogleTest (--gtest_output=xml) write
// it, read with pugixml. Counts are summed over the leaf <testsuite>
// elements. For each suite jetgate takes, per count, the larger of the
// suite's attribute and what its <testcase> children show, so a report that
// understates its failures or skips (or a crashed run whose attributes lag)
// never makes a gate look greener than the test cases do.
//
// A test case counts as: failure (<failure>), error (<error>), skipped
// (<skipped>, which includes pytest's xfail: <skipped type="pytest.xfail">;
// or GoogleTest's status="notrun" / result="skipped"|"suppressed" for
// disabled and skipped tests). GoogleTest's "disabled" attribute counts as
// skipped: a disabled test is a test that did not run.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::gate {

struct JunitCounts {
  std::int64_t tests = 0, failures = 0, errors = 0, skipped = 0;
  int suites = 0;
  bool clean() const { return tests > 0 && failures == 0 && errors == 0 && skipped == 0; }
};

inline constexpr std::size_t kMaxJunitBytes = 64u << 20;

// `where` names the file in errors.
Result<JunitCounts> parse_junit_xml(std::string_view xml, const std::string& where);
Result<JunitCounts> read_junit_file(const std::string& path);

}  // namespace jetgate::gate
