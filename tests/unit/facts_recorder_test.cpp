// SPDX-License-Identifier: Apache-2.0
// The recorder (scripts/jetgate-record-root.sh) must capture every file the
// fact readers open, or a recorded board lacks facts its owner has. The
// readers' paths come from running them over every recorded machine with an
// access log; the recorder's from `--list-paths`.
#include <fnmatch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

namespace stdfs = std::filesystem;

std::vector<std::string> recorder_patterns() {
  std::string cmd = "bash '" + test::source_dir() + "/scripts/jetgate-record-root.sh' --list-paths";
  std::vector<std::string> out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::string s(line);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) out.push_back(s);
  }
  EXPECT_EQ(::pclose(p), 0) << cmd;
  return out;
}

void record_accesses(const std::string& dir, const std::string& label,
                     std::map<std::string, std::string>& seen) {
  auto root = fs::RootFs::open(dir);
  if (!root.ok()) return;
  auto log = std::make_shared<std::vector<std::string>>();
  root->log_accesses(log);
  CollectOptions o;
  o.show_serial = true;
  o.run_commands = false;
  (void)collect_platform(*root, o);
  for (const auto& p : *log) seen.emplace(p, label);
}

// Every path a reader opened, stat'ed or listed on any recorded machine, and on
// an empty root (where every fallback path is tried because nothing is there).
std::map<std::string, std::string> reader_paths() {
  std::map<std::string, std::string> seen;  // path -> first root that showed it
  for (const auto& e : stdfs::directory_iterator(test::fixtures_dir()))
    if (stdfs::is_directory(e.path() / "root"))
      record_accesses((e.path() / "root").string(), e.path().filename().string(), seen);
  test::TempDir empty;
  record_accesses(empty.dir(), "an empty root", seen);
  return seen;
}

bool matches(const std::string& pattern, const std::string& path) {
  return ::fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0;
}

// A directory the readers list (or test for) is covered when the recorder
// records something inside it.
bool covers_directory(const std::string& pattern, const std::string& dir) {
  for (auto slash = pattern.find('/', 1); slash != std::string::npos;
       slash = pattern.find('/', slash + 1))
    if (matches(pattern.substr(0, slash), dir)) return true;
  return false;
}

TEST(Recorder, CapturesEveryPathTheReadersOpen) {
  auto patterns = recorder_patterns();
  ASSERT_GT(patterns.size(), 50u);
  auto paths = reader_paths();
  ASSERT_GT(paths.size(), 100u);
  for (const auto& [path, fixture] : paths) {
    bool covered =
        std::any_of(patterns.begin(), patterns.end(), [&, p = path](const std::string& pat) {
          return matches(pat, p) || covers_directory(pat, p) || pat == p;
        });
    EXPECT_TRUE(covered) << path << " is read (seen on " << fixture
                         << ") but scripts/jetgate-record-root.sh does not record it";
  }
}

// The other direction, so a path a reader stops reading is taken out of the
// recorder too. Paths recorded only for the humans reading a bug report, or
// that no recorded machine has, are listed with the reason.
TEST(Recorder, RecordsNothingTheReadersDoNotOpen) {
  const std::map<std::string, std::string> recorded_for_humans{
      {"/usr/lib/*-linux-gnu/libcuda.so*", "shows which driver user space is installed"},
      {"/usr/lib/*-linux-gnu/libnvidia-ml.so*", "shows which driver user space is installed"},
      {"/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so*", "JetPack 6 driver user space"},
      {"/usr/lib/aarch64-linux-gnu/nvidia/libnvrm_*.so", "JetPack 6 driver user space"},
      {"/usr/lib/aarch64-linux-gnu/tegra/libcuda.so*", "JetPack 4/5 driver user space"},
      {"/usr/lib/aarch64-linux-gnu/tegra/libnvrm*.so", "JetPack 4/5 driver user space"},
      {"/etc/nvidia-container-runtime/host-files-for-container.d/*.csv",
       "the container toolkit's CSV mode"},
      {"/jetgate-root.json", "written by the recorder, read from every recorded root"},
  };
  auto paths = reader_paths();
  std::vector<std::string> unread;
  for (const auto& pat : recorder_patterns()) {
    // Libraries are found by listing their directory, not by opening them.
    auto dir = pat.substr(0, pat.rfind('/'));
    bool read = std::any_of(paths.begin(), paths.end(), [&](const auto& kv) {
      return matches(pat, kv.first) || pat == kv.first || matches(dir, kv.first);
    });
    if (!read && !recorded_for_humans.count(pat)) unread.push_back(pat);
  }
  // Paths a reader does open, but only after a file it looks at first turned
  // out to exist: no recorded machine exercises them yet.
  const std::set<std::string> not_reached_by_any_fixture{
      "/sys/kernel/debug/tegra_bwmgr/emc_max_rate",  // after /sys/kernel/debug/clk/emc/clk_rate
                                                     // (JetPack 4)
      "/sys/kernel/debug/tegra_bwmgr/emc_min_rate",  // same
      "/sys/firmware/devicetree/base/nvidia,dtsfilename",  // on a Jetson without /proc/device-tree
      "/usr/local/include/opencv4/opencv2/cvconfig.h",     // when OpenCV is found elsewhere first
      "/usr/include/opencv2/cvconfig.h",                   // same
      "/usr/local/include/opencv2/cvconfig.h",             // same
      "/dev/nvidia-caps/*",                                // named by MIG-enabled CDI specs
      "/lib/modules/*/modules.symbols",  // when a GPU module failed with "Unknown symbol"
  };
  for (const auto& pat : unread)
    EXPECT_TRUE(not_reached_by_any_fixture.count(pat))
        << pat << " is recorded but no reader opened it on any recorded machine";
}

}  // namespace
}  // namespace jetgate::facts
