// SPDX-License-Identifier: Apache-2.0
// Dockerfile.l4t builds jetgate from source inside a JetPack image: its apt-get line
// must install every library CMakeLists.txt requires (issue 40: libsqlite3-dev was
// missing, and the build stopped at find_package(SQLite3 REQUIRED)). The image itself
// is not built here (NVIDIA's registry is out of reach and a from-source build takes
// longer than CI's budget on two cores); this test holds the package list to CMake's.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace jetgate {
namespace {

// Every package named on the build stage's `apt-get install` lines.
std::set<std::string> build_stage_packages(const std::string& dockerfile) {
  std::set<std::string> out;
  const auto start = dockerfile.find("AS build");
  const auto end = dockerfile.find("\nFROM ", start);
  std::string stage = dockerfile.substr(start, end - start);
  stage = std::regex_replace(stage, std::regex("\\\\\\n"), " ");
  std::istringstream lines(stage);
  for (std::string line; std::getline(lines, line);) {
    auto at = line.find("apt-get install");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 15));
    for (std::string w; words >> w;) {
      if (w == "&&") break;
      if (w[0] != '-') out.insert(w);
    }
  }
  return out;
}

// What CMakeLists.txt requires: find_package(NAME ... REQUIRED), and the libraries it
// looks up itself (find_library / pkg_check_modules), by the name CMake uses.
std::set<std::string> cmake_requirements(const std::string& cmake) {
  std::set<std::string> out;
  std::regex pkg("find_package\\(([A-Za-z0-9_-]+)[^)]*REQUIRED[^)]*\\)");
  for (std::sregex_iterator it(cmake.begin(), cmake.end(), pkg), end; it != end; ++it)
    out.insert((*it)[1]);
  std::regex lib("find_library\\(JETGATE_([A-Z0-9_]+) NAMES");
  for (std::sregex_iterator it(cmake.begin(), cmake.end(), lib), end; it != end; ++it)
    out.insert("lib:" + std::string((*it)[1]));
  return out;
}

TEST(DockerfileL4t, InstallsEveryLibraryCMakeRequires) {
  // The Ubuntu 22.04 (JetPack 6) package that provides each requirement.
  const std::map<std::string, std::string> provides = {
      {"nlohmann_json", "nlohmann-json3-dev"},
      {"CLI11", "libcli11-dev"},
      {"fmt", "libfmt-dev"},
      {"pugixml", "libpugixml-dev"},
      {"yaml-cpp", "libyaml-cpp-dev"},
      {"lib:YAML_CPP_STATIC", "libyaml-cpp-dev"},
      {"lib:LIBYAML", "libyaml-dev"},
      {"lib:SODIUM", "libsodium-dev"},
      {"SQLite3", "libsqlite3-dev"},
      {"lib:SQLITE3_STATIC", "libsqlite3-dev"},
      {"lib:RE2", "libre2-dev"},
      {"Threads", "build-essential"},
      // Optional (JETGATE_WITH_SIMDJSON): found when present, else the build goes on.
      {"lib:SIMDJSON_LIBRARY", ""},
  };
  const auto cmake = test::read_file(test::source_dir() + "/CMakeLists.txt");
  const auto packages =
      build_stage_packages(test::read_file(test::source_dir() + "/Dockerfile.l4t"));
  ASSERT_FALSE(packages.empty());
  EXPECT_TRUE(packages.count("cmake") && packages.count("pkg-config") && packages.count("git"));
  const auto required = cmake_requirements(cmake);
  EXPECT_TRUE(required.count("SQLite3")) << "the requirement scan found no SQLite3";
  for (const auto& r : required) {
    auto p = provides.find(r);
    ASSERT_NE(p, provides.end()) << "CMakeLists.txt requires " << r
                                 << ", which this test does not map to a package: add it here "
                                    "and to Dockerfile.l4t";
    if (p->second.empty()) continue;
    EXPECT_TRUE(packages.count(p->second))
        << "Dockerfile.l4t does not install " << p->second << ", which CMake's " << r << " needs";
  }
}

// The scan itself: a Dockerfile without a package CMake needs is caught.
TEST(DockerfileL4t, TheScanSeesAMissingPackage) {
  const std::string df =
      "FROM x AS build\nRUN apt-get update \\\n && apt-get install -y --no-install-recommends "
      "\\\n      cmake libfmt-dev \\\n && rm -rf /var/lib/apt/lists/*\nFROM x\nRUN apt-get "
      "install -y libsqlite3-dev\n";
  auto p = build_stage_packages(df);
  EXPECT_EQ(p, (std::set<std::string>{"cmake", "libfmt-dev"}));
  auto r = cmake_requirements("find_package(SQLite3 REQUIRED)\nfind_package(Git QUIET)\n");
  EXPECT_EQ(r, (std::set<std::string>{"SQLite3"}));
}

}  // namespace
}  // namespace jetgate
