// SPDX-License-Identifier: Apache-2.0
// jetgate::Pattern (RE2) and the fact readers that use it. The readers used the
// standard library's regular expressions, which recurse once per character:
// `jetgate probe` died with SIGSEGV on a cvconfig.h holding 30,000 spaces in a
// row. Each reader is given 30,000 spaces and 1 MB of one character here, and
// the commands are run on a recorded root that holds such files.
#include "jetgate/core/pattern.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/l4t.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/facts/power.hpp"
#include "jetgate/facts/versions.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using namespace std::string_literals;

TEST(Pattern, LookAroundAndBackreferencesDoNotCompile) {
  EXPECT_TRUE(Pattern::compile_error("(?=x)").has_value());
  EXPECT_TRUE(Pattern::compile_error(R"((a)\1)").has_value());
  EXPECT_TRUE(Pattern::compile_error("x{1001}").has_value());
  EXPECT_FALSE(Pattern::compile_error(R"(^(\d+)\.(\d+)$)").has_value());
}

TEST(PatternDeathTest, APatternThatDoesNotCompileAborts) {
  EXPECT_DEATH(Pattern("a(?=b)"), "does not compile");
}

TEST(Pattern, SearchSeesWhatComesBeforeItsStart) {
  Pattern word(R"(\bab)");
  EXPECT_TRUE(word.search("ab").has_value());
  EXPECT_FALSE(word.search("xab", 1).has_value());  // "x" before: no word boundary
  EXPECT_EQ(word.search(" ab", 1)->position(), 1u);
  Pattern start("^a");
  EXPECT_FALSE(start.search("aa", 1).has_value());
  auto all = Pattern(R"(p(\d)-(\d))").all("p1-2 p3-4");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].str(1), "3");
  EXPECT_EQ(all[1].position(), 5u);
}

TEST(Pattern, GroupsAndBytes) {
  Pattern p(R"((a)?(b))");
  auto m = p.full_match("b");
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->matched(1));
  EXPECT_EQ(m->str(1), "");
  EXPECT_EQ(m->str(2), "b");
  // Latin-1: one byte is one character, as for the standard library on std::string.
  EXPECT_TRUE(Pattern(".{3}").full_matches("\xE2\x82\xAC"s));
  EXPECT_TRUE(Pattern("[^a]").full_matches("\xFF"s));
  EXPECT_TRUE(Pattern("X", Pattern::Case::insensitive).full_matches("x"));
  // [[:space:]] holds the vertical tab; RE2's \s does not.
  EXPECT_TRUE(Pattern("[[:space:]]").full_matches("\v"));
  EXPECT_FALSE(Pattern(R"(\s)").full_matches("\v"));
}

// Every reader's patterns compile (a Pattern that does not aborts) and match
// what they are for.
TEST(FactsPatterns, EveryReaderMatchesItsInput) {
  using namespace facts;
  auto conf = parse_nvpmodel_conf(
      "< POWER_MODEL ID=0 NAME=MODE_15W_6CORE >\n< POWER_MODEL ID=1 NAME=MODE_20W_2CORE >\n"
      "< PM_CONFIG DEFAULT=1 >\n");
  ASSERT_EQ(conf.modes.size(), 2u);
  EXPECT_EQ(conf.default_id, 1);
  ASSERT_NE(conf.fastest(), nullptr);  // watts, then cores
  EXPECT_EQ(conf.fastest()->name, "MODE_20W_2CORE");
  EXPECT_EQ(parse_nvpmodel_status("NV Power Mode: MAXN\n0\npmode:0000 fan_mode:quiet"), 0);
  EXPECT_EQ(soc_from_compatible({"nvidia,p3768-0000+p3767-0005", "nvidia,tegra234"}), "tegra234");
  auto m = module_from_compatible({"nvidia,p3768-0000+p3767-0005-super", "nvidia,tegra234"});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->part_number, "p3767-0005");
  EXPECT_EQ(m->variant, "super");
  auto b = module_from_board_ids("3701:0000");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->part_number, "p3701-0000");
  auto d = module_from_dtsfilename("/a/tegra234-p3768-0000+p3767-0005-nv.dts");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->part_number, "p3767-0005");
  auto part = parse_699_part_number("699-13767-0005-300 L.3");
  ASSERT_TRUE(part);
  EXPECT_EQ(part->board_id, "3767");
  EXPECT_EQ(*parse_cuda_version_txt("CUDA Version 10.2.300\n"), "10.2.300");
  EXPECT_EQ(*parse_nvcc_version("Cuda compilation tools, release 12.6, V12.6.68\n"), "12.6.68");
  EXPECT_EQ(*parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  540.4.0  Release\n"),
            "540.4.0");
  auto defines = parse_header_defines("#define CUDNN_MAJOR 9\n  #  define CUDNN_MINOR\t3\n");
  EXPECT_EQ(defines["CUDNN_MAJOR"], 9);
  EXPECT_EQ(defines["CUDNN_MINOR"], 3);
  EXPECT_EQ(*parse_nv_tegra_release("# R36 (release), REVISION: 4.3, GCID: 1, BOARD: generic\n"),
            "36.4.3");
  EXPECT_EQ(l4t_from_package_version("36.4.3-20250107174145"), "36.4.3");
  EXPECT_EQ(jetpack_from_package_version("6.2.1+b38"), "6.2.1");
}

// What each reader is given: 30,000 spaces, 1 MB of one character, and the
// start of a line it reads followed by 1 MB of one character.
std::vector<std::string> hostile_texts() {
  std::vector<std::string> out = {std::string(30000, ' ')};
  for (char c : {' ', '\t', '\n', '#', '0', '9', 'a', 'W', '.', ':', '-', '<', 'p', '\0', '\xff'})
    out.push_back(std::string(1000000, c));
  for (const char* start : {"#define ", "# define HAVE_CUDA", "< POWER_MODEL ID=", "pmode:",
                            "CUDA Version ", "NVRM version: Kernel Module ", "release ",
                            "# R36 (release), REVISION:", "699-1", "nvidia,", "p3767-"}) {
    out.push_back(start + std::string(1000000, ' '));
    out.push_back(start + std::string(1000000, '0'));
  }
  return out;
}

TEST(FactsHostileInput, EveryReaderFinishesOnLongRunsOfOneCharacter) {
  using namespace facts;
  auto start = std::chrono::steady_clock::now();
  for (const auto& text : hostile_texts()) {
    SCOPED_TRACE(text.substr(0, 32));
    EXPECT_TRUE(parse_nvpmodel_conf(text).modes.empty());
    EXPECT_FALSE(parse_nvpmodel_status(text).has_value());
    EXPECT_FALSE(soc_from_compatible({text}).has_value());
    EXPECT_FALSE(module_from_compatible({text, text + "+" + text}).has_value());
    EXPECT_FALSE(module_from_board_ids(text).has_value());
    EXPECT_FALSE(module_from_dtsfilename(text).has_value());
    EXPECT_FALSE(parse_699_part_number(text).has_value());
    EXPECT_FALSE(part_number_from_eeprom(text).has_value());
    EXPECT_FALSE(parse_cuda_version_txt(text).ok());
    EXPECT_FALSE(parse_nvcc_version(text).ok());
    EXPECT_FALSE(parse_nvidia_driver_version(text).ok());
    EXPECT_TRUE(parse_header_defines(text).empty());
    EXPECT_FALSE(parse_nv_tegra_release(text).ok());
    EXPECT_FALSE(l4t_from_package_version(text).has_value());
    EXPECT_FALSE(jetpack_from_package_version(text).has_value());
  }
  // Not a timing claim: recursion crashed and a backtracking hang would run
  // for minutes; this bound only catches that.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// A root as recorded from an AGX Orin, with an OpenCV whose cvconfig.h is the
// given text (and every other text file the readers search replaced by 1 MB
// of spaces when `all_files`).
std::string root_with_cvconfig(const test::TempDir& t, const std::string& cvconfig,
                               bool all_files) {
  namespace stdfs = std::filesystem;
  std::string root = t.path("root");
  stdfs::copy(test::fixtures_dir() + "/agx-orin-64gb-jp62/root", root,
              stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
  t.write("root/usr/lib/aarch64-linux-gnu/libopencv_core.so.4.8.0", "");
  t.write("root/usr/include/opencv4/opencv2/cvconfig.h", cvconfig);
  if (all_files) {
    std::string spaces(1000000, ' ');
    for (const char* f :
         {"etc/nvpmodel.conf", "usr/local/cuda/version.txt", "proc/driver/nvidia/version",
          "usr/include/cudnn_version.h", "usr/include/aarch64-linux-gnu/NvInferVersion.h",
          "proc/device-tree/nvidia,dtsfilename", "proc/device-tree/nvidia,boardids",
          "usr/include/opencv4/opencv2/core/version.hpp"}) {
      // The recording's links (usr/local/cuda -> /etc/alternatives/cuda) point
      // at absolute paths: never write through one, it could leave the root.
      stdfs::path at = root;
      for (const auto& part : stdfs::path(f)) {
        at /= part;
        if (stdfs::is_symlink(at)) stdfs::remove(at);
      }
      stdfs::remove(at);
      t.write(std::string("root/") + f, spaces);
    }
  }
  return root;
}

TEST(FactsHostileInput, CvconfigWithLongRunsOfSpacesIsRead) {
  for (std::size_t n : {30000u, 1000000u}) {
    test::TempDir t;
    // "#define" and HAVE_CUDA 30,000 spaces apart still define it.
    auto root = fs::RootFs::open(
        root_with_cvconfig(t, "#define" + std::string(n, ' ') + "HAVE_CUDA\n", false));
    ASSERT_TRUE(root.ok());
    auto r = facts::collect_platform(*root, {});
    EXPECT_EQ(r.platform["libraries"]["opencv_cuda"], true) << r.platform["libraries"].dump();
    test::TempDir u;
    auto only_spaces = fs::RootFs::open(root_with_cvconfig(u, std::string(n, ' '), false));
    ASSERT_TRUE(only_spaces.ok());
    auto s = facts::collect_platform(*only_spaces, {});
    EXPECT_EQ(s.platform["libraries"]["opencv_cuda"], false) << s.platform["libraries"].dump();
  }
}

// The commands that died with SIGSEGV: probe, run --dry-run, container. With the hostile
// cvconfig.h they exit as they do with a plain one; with every file the readers
// search replaced by 1 MB of spaces they still exit (0 or 1), not by a signal.
TEST(FactsHostileInput, ProbeDryRunAndContainerFinishOnAHostileRoot) {
  test::TempDir plain, hostile, all;
  std::string plain_root = root_with_cvconfig(plain, "#define HAVE_OPENCL\n", false);
  // 30,000 spaces overflowed the stack at -O0; 1 MB does in any build.
  std::string hostile_root = root_with_cvconfig(hostile, std::string(1000000, ' ') + "\n", false);
  std::string all_root = root_with_cvconfig(all, std::string(1000000, ' '), true);
  for (std::vector<std::string> args :
       {std::vector<std::string>{"probe", "--json"},
        std::vector<std::string>{"run", "jetson-cuda-runtime", "--dry-run"},
        std::vector<std::string>{"container", "--json"}}) {
    auto with_root = [&](const std::string& root) {
      auto a = args;
      a.insert(a.begin() + (args[0] == "run" ? 2 : 1), {"--root", root});
      return a;
    };
    auto expected = test::run_jetgate(with_root(plain_root));
    auto r = test::run_jetgate(with_root(hostile_root));
    EXPECT_EQ(r.exit_code, expected.exit_code) << args[0] << "\n" << r.err.substr(0, 2000);
    EXPECT_FALSE(r.out.empty()) << args[0];
    auto every = test::run_jetgate(with_root(all_root));
    EXPECT_TRUE(every.exit_code == 0 || every.exit_code == 1)
        << args[0] << " exited " << every.exit_code << "\n"
        << every.err.substr(0, 2000);
  }
}

}  // namespace
}  // namespace jetgate
