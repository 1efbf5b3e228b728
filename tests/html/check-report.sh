#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CI's html stage: the HTML fleet report (`jetgate history report --html`) opened in
# Debian's headless Chromium, by the test binary's HistoryHtmlChromium tests
# (tests/unit/history_html_test.cpp): a screenshot checked for size and colours, and the
# DOM Chromium builds checked for every node, verdict and plot, the planted regressions
# first. Without chromium the test binary skips these; here they must run and pass.
# Usage: tests/html/check-report.sh [BUILD_DIR]   (default build/, built with tests)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
if ! command -v chromium >/dev/null 2>&1; then
  echo "check-report.sh: chromium is not installed (bash scripts/install-deps.sh --ci installs it)" >&2
  exit 1
fi
if [ ! -x "$build/tests/jetgate_tests" ]; then
  echo "check-report.sh: $build/tests/jetgate_tests does not exist; build with -DJETGATE_BUILD_TESTS=ON" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
JETGATE_REQUIRE_CHROMIUM=1 "$build/tests/jetgate_tests" --gtest_filter='HistoryHtmlChromium.*' >"$log" 2>&1 || status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  echo "check-report.sh: the Chromium tests failed" >&2
  exit 1
fi
if grep -q '^\[  SKIPPED \]' "$log" || ! grep -q '^\[  PASSED  \] 1 test' "$log"; then
  echo "check-report.sh: the Chromium test did not run" >&2
  exit 1
fi
echo "check-report.sh: the HTML report passed in $(chromium --version 2>/dev/null | head -1)"
