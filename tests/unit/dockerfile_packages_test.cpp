// SPDX-License-Identifier: Apache-2.0
// Dockerfile.l4t builds jetgate from source inside a JetPack image: the packages its
// build stage installs (and the stages it copies from) must provide every library
// CMakeLists.txt requires and every header src/ includes (issue 40: libsqlite3-dev was
// missing, and the build stopped at find_package(SQLite3 REQUIRED); toml++, which no
// find_package names, was missing too). CI builds the file on a stand-in base
// (scripts/test-l4t-image.sh); this test names the missing package without a build,
// and also for what the stand-in happens to have.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace jetgate {
namespace {

struct Stage {
  std::string name;                   // "build", or "" for an unnamed one
  std::set<std::string> packages;     // on its `apt-get install` lines
  std::set<std::string> copies_from;  // COPY --from=NAME
};

std::vector<Stage> stages_of(const std::string& dockerfile) {
  std::string text = std::regex_replace(dockerfile, std::regex("\\\\\\n"), " ");
  std::vector<Stage> out;
  std::istringstream lines(text);
  const std::regex from("^FROM\\s+\\S+(?:\\s+AS\\s+(\\S+))?\\s*$", std::regex::icase);
  const std::regex copy("^COPY\\s+--from=(\\S+)");
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, from)) {
      out.push_back({m[1], {}, {}});
      continue;
    }
    if (out.empty()) continue;
    if (std::regex_search(line, m, copy)) out.back().copies_from.insert(m[1]);
    auto at = line.find("apt-get install");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 15));
    for (std::string w; words >> w;) {
      if (w == "&&") break;
      if (w[0] != '-') out.back().packages.insert(w);
    }
  }
  return out;
}

// Every package the build stage has: its own, and those of the stages it copies from.
std::set<std::string> build_stage_packages(const std::string& dockerfile) {
  const auto stages = stages_of(dockerfile);
  std::set<std::string> out;
  for (const auto& s : stages)
    if (s.name == "build") {
      out.insert(s.packages.begin(), s.packages.end());
      for (const auto& from : s.copies_from)
        for (const auto& t : stages)
          if (t.name == from) out.insert(t.packages.begin(), t.packages.end());
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

// Every <header> the C++ sources include (the .cu kernels are nvcc's, not the host
// compiler's), with a file that includes it.
std::map<std::string, std::string> included_headers(const std::string& src) {
  std::map<std::string, std::string> out;
  const std::regex inc("^#\\s*include\\s*<([^>]+)>");
  for (const auto& f : std::filesystem::recursive_directory_iterator(src)) {
    const auto ext = f.path().extension().string();
    if (!f.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
    std::istringstream lines(test::read_file(f.path().string()));
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (std::regex_search(line, m, inc)) out.emplace(m[1], f.path().string());
    }
  }
  return out;
}

// The package that provides a header, "libc" for the C library and the kernel's
// headers (build-essential's libc6-dev and linux-libc-dev), "std" for the C++ library,
// "" for an optional one; nullopt: unknown.
std::optional<std::string> package_of_header(const std::string& h) {
  static const std::vector<std::pair<std::string, std::string>> prefixes = {
      {"fmt/", "libfmt-dev"},
      {"nlohmann/", "nlohmann-json3-dev"},
      {"CLI/", "libcli11-dev"},
      {"yaml-cpp/", "libyaml-cpp-dev"},
      {"re2/", "libre2-dev"},
      {"toml++/", "libtomlplusplus-dev"},
      {"sys/", "libc"},
      {"linux/", "libc"},
      {"sodium.h", "libsodium-dev"},
      {"pugixml.hpp", "libpugixml-dev"},
      {"yaml.h", "libyaml-dev"},
      {"sqlite3.h", "libsqlite3-dev"},
      {"simdjson.h", ""},  // optional: JETGATE_WITH_SIMDJSON, found when present
  };
  for (const auto& [p, pkg] : prefixes)
    if (h.compare(0, p.size(), p) == 0) return pkg;
  static const std::set<std::string> libc = {"unistd.h", "fcntl.h", "signal.h", "pwd.h",
                                             "grp.h",    "poll.h",  "dirent.h", "time.h",
                                             "dlfcn.h",  "errno.h", "limits.h", "stdio.h"};
  if (libc.count(h)) return std::string("libc");
  if (h.find('.') == std::string::npos && h.find('/') == std::string::npos)
    return std::string("std");
  return std::nullopt;
}

TEST(DockerfileL4t, InstallsEveryLibraryCMakeRequires) {
  // The package that provides each requirement (the same names in Ubuntu 22.04 and
  // Debian 12).
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

// Header-only libraries have no find_package: the headers src/ includes decide.
TEST(DockerfileL4t, InstallsEveryHeaderTheSourcesInclude) {
  const auto packages =
      build_stage_packages(test::read_file(test::source_dir() + "/Dockerfile.l4t"));
  ASSERT_TRUE(packages.count("build-essential"));
  const auto headers = included_headers(test::source_dir() + "/src");
  ASSERT_TRUE(headers.count("toml++/toml.h")) << "the include scan found no toml++";
  for (const auto& [h, file] : headers) {
    auto pkg = package_of_header(h);
    ASSERT_TRUE(pkg.has_value()) << file << " includes <" << h
                                 << ">, which this test does not map to a package: add it to "
                                    "package_of_header and to Dockerfile.l4t";
    if (pkg->empty() || *pkg == "std" || *pkg == "libc") continue;
    EXPECT_TRUE(packages.count(*pkg)) << "Dockerfile.l4t's build stage does not get " << *pkg
                                      << ", which <" << h << "> of " << file << " needs";
  }
}

// The scan itself: a Dockerfile without a package CMake needs is caught, a stage the
// build copies from counts, one it does not copy from does not.
TEST(DockerfileL4t, TheScanSeesAMissingPackage) {
  const std::string df =
      "FROM y AS tomlpp\nRUN apt-get install -y libtomlplusplus-dev\n"
      "FROM z AS other\nRUN apt-get install -y libsodium-dev\n"
      "FROM x AS build\nRUN apt-get update \\\n && apt-get install -y --no-install-recommends "
      "\\\n      cmake libfmt-dev \\\n && rm -rf /var/lib/apt/lists/*\n"
      "COPY --from=tomlpp /usr/include/toml++ /usr/local/include/toml++\nFROM x\nRUN apt-get "
      "install -y libsqlite3-dev\n";
  auto p = build_stage_packages(df);
  EXPECT_EQ(p, (std::set<std::string>{"cmake", "libfmt-dev", "libtomlplusplus-dev"}));
  auto r = cmake_requirements("find_package(SQLite3 REQUIRED)\nfind_package(Git QUIET)\n");
  EXPECT_EQ(r, (std::set<std::string>{"SQLite3"}));
  EXPECT_EQ(package_of_header("toml++/toml.h"), "libtomlplusplus-dev");
  EXPECT_EQ(package_of_header("sys/stat.h"), "libc");
  EXPECT_EQ(package_of_header("string"), "std");
  EXPECT_FALSE(package_of_header("zstd.h").has_value());
}

}  // namespace
}  // namespace jetgate
