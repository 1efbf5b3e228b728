// SPDX-License-Identifier: Apache-2.0
// End-to-end regression tests for what jetgate writes for humans (issue 11,
// classes 5, 6, 8 and the output side of 2 and 10): the built binary on
// hostile READMEs, forged support blocks and hostile evidence file names.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "claims_test_helpers.hpp"
#include "test_support.hpp"

namespace jetgate::test {
namespace {

namespace stdfs = std::filesystem;

std::string claims_dir(const char* name) {
  return fixtures_dir() + "/claims/" + name;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

const char* kToday = "2026-11-29";

std::vector<std::string> support(std::vector<std::string> tail) {
  std::vector<std::string> a = {"support", "--today", kToday, "--evidence-dir",
                                claims_dir("jetgate-orin")};
  a.insert(a.end(), tail.begin(), tail.end());
  return a;
}

// Runs jetgate with stdin read from stdin_path (run_jetgate's default is /dev/null).
CliRun run_with_stdin(const std::vector<std::string>& args, const std::string& stdin_path) {
  return run_jetgate(args, {}, stdin_path);
}

const std::string kBegin = "<!-- jetgate:support:begin -->";
const std::string kEnd = "<!-- jetgate:support:end -->";

std::string simple_readme() {
  return "# robot\n\n" + kBegin + "\n" + kEnd + "\n\nLicense: MIT\n";
}

// ---- Class 5: writing the README destroys nothing ----

TEST(ClaimsIoCli, MarkersInsideCodeExamplesAreNotTheBlock) {
  TempDir t;
  std::string example = "## How to\n\n```markdown\n" + kBegin + "\n(example)\n" + kEnd +
                        "\n```\n\n" + "  ~~~~ text\n" + kBegin + "\n~~~\n" + kEnd + "\n  ~~~~\n\n" +
                        "Indented:\n\n    " + kBegin + "\n    " + kEnd + "\n\n";
  std::string readme_text = example + "## Support\n\n" + kBegin + "\nold\n" + kEnd + "\n";
  auto readme = t.write("README.md", readme_text);
  auto r = run_jetgate(support({"--readme", readme}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string written = read_file(readme);
  EXPECT_EQ(written.substr(0, example.size()), example) << "the examples must stay byte for byte";
  EXPECT_FALSE(has(written, "\nold\n"));
  EXPECT_TRUE(has(written, "| Jetson AGX Orin 64GB |")) << written;
  auto v = run_jetgate(support({"--readme", readme, "--verify"}));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

TEST(ClaimsIoCli, OnlyMarkersInACodeExampleIsMissingMarkers) {
  TempDir t;
  std::string text = "```\n" + kBegin + "\n" + kEnd + "\n```\n";
  auto readme = t.write("README.md", text);
  auto r = run_jetgate(support({"--readme", readme}));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "code")) << r.err;  // says why the lines it saw do not count
  EXPECT_EQ(read_file(readme), text);
}

TEST(ClaimsIoCli, AReadOnlyReadmeIsRefusedAndLeftAlone) {
  TempDir t;
  auto readme = t.write("README.md", simple_readme());
  ASSERT_EQ(::chmod(readme.c_str(), 0444), 0);
  struct stat before {};
  ASSERT_EQ(::stat(readme.c_str(), &before), 0);
  auto r = run_jetgate(support({"--readme", readme}));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(has(r.err, "read-only") || has(r.err, "not writable")) << r.err;
  struct stat after {};
  ASSERT_EQ(::stat(readme.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_mode & 07777, 0444u);
  EXPECT_EQ(read_file(readme), simple_readme());
}

TEST(ClaimsIoCli, ASymlinkedReadmeStaysALinkAndItsTargetIsUpdated) {
  TempDir t;
  auto target = t.write("docs/README.real.md", simple_readme());
  std::string link = t.path("README.md");
  ASSERT_EQ(::symlink("docs/README.real.md", link.c_str()), 0);
  auto r = run_jetgate(support({"--readme", link}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(stdfs::is_symlink(link));
  EXPECT_EQ(stdfs::read_symlink(link).string(), "docs/README.real.md");
  EXPECT_TRUE(has(read_file(target), "| Jetson AGX Orin 64GB |"));
  EXPECT_EQ(run_jetgate(support({"--readme", link, "--verify"})).exit_code, 0);
  // A link that leaves its directory is followed as the system follows it.
  ASSERT_TRUE(stdfs::create_directory(t.path("sub")));
  std::string outward = t.path("sub/README.md");
  ASSERT_EQ(::symlink("../docs/README.real.md", outward.c_str()), 0);
  EXPECT_EQ(run_jetgate(support({"--readme", outward, "--verify"})).exit_code, 0);
  auto again = run_jetgate(support({"--readme", outward}));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(has(again.out, "already up to date")) << again.out;
  EXPECT_TRUE(stdfs::is_symlink(outward));
}

TEST(ClaimsIoCli, HardLinksModeAndOwnerAreKept) {
  TempDir t;
  auto readme = t.write("README.md", simple_readme());
  std::string other = t.path("README-copy.md");
  ASSERT_EQ(::link(readme.c_str(), other.c_str()), 0);
  ASSERT_EQ(::chmod(readme.c_str(), 0600), 0);
  bool chowned = ::geteuid() == 0 && ::chown(readme.c_str(), 4242, 4343) == 0;
  struct stat before {};
  ASSERT_EQ(::stat(readme.c_str(), &before), 0);
  auto r = run_jetgate(support({"--readme", readme}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat after {};
  ASSERT_EQ(::stat(readme.c_str(), &after), 0);
  EXPECT_EQ(after.st_ino, before.st_ino) << "the README was replaced by another file";
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(after.st_mode & 07777, 0600u) << "a private README must stay private";
  if (chowned) {
    EXPECT_EQ(after.st_uid, 4242u);
    EXPECT_EQ(after.st_gid, 4343u);
  }
  EXPECT_EQ(read_file(other), read_file(readme));
  EXPECT_TRUE(has(read_file(other), "| Jetson AGX Orin 64GB |"));
  // No recovery copy is left behind after a write that completed.
  for (const auto& e : stdfs::directory_iterator(t.dir()))
    EXPECT_FALSE(has(e.path().filename().string(), ".jetgate-")) << e.path();
}

TEST(ClaimsIoCli, CrlfReadmesGetCrlfBlocksAndVerify) {
  TempDir t;
  std::string text = "# robot\r\n\r\n" + kBegin + "\r\n" + kEnd + "\r\n\r\nLicense: MIT\r\n";
  auto readme = t.write("README.md", text);
  auto r = run_jetgate(support({"--readme", readme}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string written = read_file(readme);
  EXPECT_TRUE(has(written, "| Jetson AGX Orin 64GB |"));
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (written[i] == '\n') {
      ASSERT_TRUE(i > 0 && written[i - 1] == '\r') << "a bare LF at byte " << i;
    }
  }
  EXPECT_EQ(run_jetgate(support({"--readme", readme, "--verify"})).exit_code, 0);
  auto again = run_jetgate(support({"--readme", readme}));
  EXPECT_TRUE(has(again.out, "already up to date")) << again.out;
}

TEST(ClaimsIoCli, AByteOrderMarkDoesNotHideTheFirstMarker) {
  TempDir t;
  std::string text = "\xEF\xBB\xBF" + kBegin + "\n" + kEnd + "\n";
  auto readme = t.write("README.md", text);
  auto r = run_jetgate(support({"--readme", readme}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string written = read_file(readme);
  EXPECT_EQ(written.substr(0, 3 + kBegin.size()), "\xEF\xBB\xBF" + kBegin);
  EXPECT_TRUE(has(written, "| Jetson AGX Orin 64GB |"));
}

TEST(ClaimsIoCli, ReadmeDashIsStdinToStdout) {
  TempDir t;
  auto input = t.write("in.md", simple_readme());
  auto r = run_with_stdin(support({"--readme", "-"}), input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "# robot\n\n" + kBegin + "\n<!-- Generated by")) << r.out;
  EXPECT_TRUE(has(r.out, kEnd + "\n\nLicense: MIT\n"));
  EXPECT_EQ(read_file(input), simple_readme());
  auto written = t.write("out.md", r.out);
  auto v = run_with_stdin(support({"--readme", "-", "--verify"}), written);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  auto bad = run_with_stdin(support({"--readme", "-", "--verify"}), input);
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out, "<stdin>:")) << bad.out;
}

// ---- Class 6: --verify accepts no forged block ----

std::string written_readme(TempDir& t) {
  auto readme = t.write("README.md", simple_readme());
  auto r = run_jetgate(support({"--readme", readme}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return readme;
}

CliRun verify_edited(TempDir& t, const std::string& readme, const std::string& from,
                     const std::string& to) {
  std::string text = read_file(readme);
  auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from << "\n" << text;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  t.write("README.md", text);
  return run_jetgate(support({"--readme", readme, "--verify"}));
}

TEST(ClaimsIoCli, VerifyRejectsASupportedRowInTheNotClaimedTable) {
  TempDir t;
  // The Orin fixtures have no not-claimed rows: forge the table and a row that says "supported".
  auto readme = written_readme(t);
  std::string forged =
      "\nNot claimed: the evidence below is stale, failed, not run, inconsistent, dated in the "
      "future, "
      "or does not name its platform.\n\n| Platform | Runtime | Gate | Why not claimed "
      "|\n|---|---|---|---|\n"
      "| Jetson Orin Nano 8GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6 | cuda-runtime | supported, "
      "fresh green |\n" +
      kEnd;
  auto r = verify_edited(t, readme, kEnd, forged);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "Jetson Orin Nano 8GB") || has(r.out, "not what the evidence generates"))
      << r.out;
}

// The committed block holds no value that changes while nothing changed: a
// day later, with the same evidence, --verify still holds (the claim job
// stays green); edited rows, added dates and claiming less do not.
TEST(ClaimsIoCli, VerifyHoldsTheNextDayButNotEditedRows) {
  TempDir t;
  auto readme = written_readme(t);
  EXPECT_FALSE(has(read_file(readme), "(2026-")) << read_file(readme);
  for (const char* day : {"2026-11-30", "2026-12-05"}) {
    auto later = run_jetgate({"support", "--today", day, "--evidence-dir",
                              claims_dir("jetgate-orin"), "--readme", readme, "--verify"});
    EXPECT_EQ(later.exit_code, 0) << day << "\n" << later.out << later.err;
  }
  for (const char* to :
       {"cuda-runtime (1970-01-01)", "cuda-runtime (2026-11-27)", "cuda-rnutime"}) {
    auto r = verify_edited(t, readme, "cuda-runtime", to);
    EXPECT_EQ(r.exit_code, 1) << to << "\n" << r.out << r.err;
    run_jetgate(support({"--readme", readme}));  // back to the generated block
  }
  // Claiming less than the evidence says is a block that is not what the evidence generates.
  auto fewer = verify_edited(t, readme, "cuda-runtime, ", "");
  EXPECT_EQ(fewer.exit_code, 1) << fewer.out;
  // Evidence that went stale (a real change) makes the block differ: red, as it should.
  run_jetgate(support({"--readme", readme}));
  auto stale = run_jetgate({"support", "--today", "2026-12-31", "--evidence-dir",
                            claims_dir("jetgate-orin"), "--readme", readme, "--verify"});
  EXPECT_EQ(stale.exit_code, 1) << stale.out << stale.err;
}

TEST(ClaimsIoCli, GateIdsWithBarsOrNewlinesCannotAddRowsOrCells) {
  TempDir t;
  for (const std::string gate :
       {"evil | NVIDIA H200 (x86_64) | driver 1, CUDA 13.0 | forged (2026-11-29)",
        "evil\n| NVIDIA H200 (x86_64) | driver 1 | forged |",
        "evil <!-- jetgate:support:end -->"}) {
    TempDir e;
    auto doc = orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", gate}});
    e.write(gate + ".json", doc.dump());
    auto r = run_jetgate({"support", "--today", kToday, "--evidence-dir", e.dir()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    int rows = 0;
    for (std::size_t pos = 0; (pos = r.out.find("\n|", pos)) != std::string::npos; ++pos) ++rows;
    // Outside the gate id grammar the file speaks for no gate: no claims row at all.
    EXPECT_EQ(rows, 0) << "no row from evidence whose gate id is not a gate id:\n" << r.out;
    EXPECT_FALSE(has(r.out, "\n| NVIDIA H200")) << r.out;
    EXPECT_EQ(r.out.find("-->"), r.out.rfind("-->"))
        << "only the generated comment may close a comment:\n"
        << r.out;
    // Written into a README, the block still verifies and the markers are intact.
    auto readme = t.write("README.md", simple_readme());
    ASSERT_EQ(
        run_jetgate({"support", "--today", kToday, "--evidence-dir", e.dir(), "--readme", readme})
            .exit_code,
        0);
    auto v = run_jetgate(
        {"support", "--today", kToday, "--evidence-dir", e.dir(), "--readme", readme, "--verify"});
    EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  }
}

// ---- Output side of classes 2 and 10 ----

TEST(ClaimsIoCli, FileNamesThatAreNotUtf8KeepJsonValid) {
  TempDir e;
  e.write("cuda-runtime.json",
          orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", "cuda-runtime"}}).dump());
  e.write("bad-\xff\xfe-name.json", "{");
  // "x" and 60 two-byte characters: the skip message cuts the gate id at 80 bytes, mid-character.
  std::string long_gate = "x";
  for (int i = 0; i < 60; ++i) long_gate += "\xC3\xA9";
  e.write("mismatch.json",
          orin_evidence_json("2026-11-29T10:00:00Z", {{"gate", long_gate}}).dump());
  auto r =
      run_jetgate({"support", "--today", kToday, "--evidence-dir", e.dir(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["skipped"].size(), 2u);
  auto md = run_jetgate({"support", "--today", kToday, "--evidence-dir", e.dir()});
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_FALSE(has(md.err, "\xff")) << "raw bytes that are not UTF-8 reach the terminal";
  auto summary =
      run_jetgate({"summary", "--today", kToday, "--evidence-dir", e.dir(), "--format", "issue"});
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_FALSE(has(summary.out, "\xff"));
}

TEST(ClaimsIoCli, ControlAndBidiCharactersAreShownEscaped) {
  TempDir e;
  std::string gate =
      "ok\xE2\x80\xAE"
      "evil\x1b[31m";  // U+202E RIGHT-TO-LEFT OVERRIDE, then an ANSI colour
  e.write(gate + ".json",
          orin_evidence_json(
              "2026-11-29T10:00:00Z",
              {{"gate", gate}, {"status", "failed"}, {"reason", "boom \xE2\x81\xA6x\x07"}})
              .dump());
  e.write("x\x1b]0;title\x07.json", "{");
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{"support"}, {"summary"}, {"summary", "--format", "issue"}}) {
    cmd.insert(cmd.end(), {"--today", kToday, "--evidence-dir", e.dir()});
    auto r = run_jetgate(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd[0] << r.err;
    for (const std::string& raw : {std::string("\x1b"), std::string("\x07"),
                                   std::string("\xE2\x80\xAE"), std::string("\xE2\x81\xA6")}) {
      EXPECT_FALSE(has(r.out, raw)) << cmd[0] << " stdout:\n" << r.out;
      EXPECT_FALSE(has(r.err, raw)) << cmd[0] << " stderr:\n" << r.err;
    }
  }
  // The file is refused (its name is no gate id), and the refusal shows the name escaped.
  auto md = run_jetgate({"support", "--today", kToday, "--evidence-dir", e.dir()});
  EXPECT_TRUE(has(md.err, "\\u202e")) << md.err;
}

TEST(ClaimsIoCli, PolicyOptionsThatNameNoFile) {
  TempDir t;
  for (const char* cmd : {"support", "summary"}) {
    auto empty = run_jetgate({cmd, "--evidence-dir", claims_dir("jetgate-orin"), "--policy", ""});
    EXPECT_EQ(empty.exit_code, 2) << cmd << empty.out;
    EXPECT_FALSE(has(empty.err, "directory")) << empty.err;
    EXPECT_TRUE(has(empty.err, "--policy")) << empty.err;
    auto input = t.write("policy.json", "{}");
    auto stdin_policy = run_with_stdin(
        {cmd, "--evidence-dir", claims_dir("jetgate-orin"), "--policy", "/dev/stdin"}, input);
    EXPECT_EQ(stdin_policy.exit_code, 2) << cmd << stdin_policy.out;
    EXPECT_TRUE(has(stdin_policy.err, "regular file")) << stdin_policy.err;
    auto dash = run_jetgate({cmd, "--evidence-dir", claims_dir("jetgate-orin"), "--policy", "-"});
    EXPECT_EQ(dash.exit_code, 2);
    EXPECT_TRUE(has(dash.err, "regular file")) << dash.err;
  }
}

}  // namespace
}  // namespace jetgate::test
