// SPDX-License-Identifier: Apache-2.0
// fs::InPlaceFile: the README is edited where it is (its inode, links, mode
// and owner kept) and never left half-written.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "jetgate/fs/write_in_place.hpp"
#include "test_support.hpp"

namespace jetgate::fs {
namespace {

using test::read_file;
using test::TempDir;
namespace stdfs = std::filesystem;

constexpr std::size_t kMax = 1u << 20;

struct stat stat_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

std::vector<std::string> recovery_copies(const TempDir& t, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& e : stdfs::directory_iterator(t.dir()))
    if (e.path().filename().string().rfind(recovery_copy_prefix(name), 0) == 0)
      out.push_back(e.path().string());
  return out;
}

TEST(ClaimsIoWriteInPlace, ReplacesContentsKeepingInodeLinksModeAndOwner) {
  TempDir t;
  auto path = t.write("README.md", "old text\n");
  ASSERT_EQ(::link(path.c_str(), t.path("second-link.md").c_str()), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  bool chowned = ::geteuid() == 0 && ::chown(path.c_str(), 4242, 4343) == 0;
  auto before = stat_of(path);
  auto file = InPlaceFile::open(path, kMax);
  ASSERT_TRUE(file) << file.error().message();
  EXPECT_EQ(file->contents(), "old text\n");
  ASSERT_TRUE(file->replace("new, longer text\nline 2\n"));
  auto after = stat_of(path);
  EXPECT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(after.st_nlink, 2u);
  EXPECT_EQ(after.st_mode & 07777, 0640u);
  if (chowned) {
    EXPECT_EQ(after.st_uid, 4242u);
    EXPECT_EQ(after.st_gid, 4343u);
  }
  EXPECT_EQ(read_file(path), "new, longer text\nline 2\n");
  EXPECT_EQ(read_file(t.path("second-link.md")), "new, longer text\nline 2\n");
  ASSERT_TRUE(file->replace("short\n"));  // shrinking truncates
  EXPECT_EQ(read_file(path), "short\n");
  EXPECT_TRUE(recovery_copies(t, "README.md").empty());
}

TEST(ClaimsIoWriteInPlace, WritesThroughSymbolicLinks) {
  TempDir t;
  auto target = t.write("docs/real.md", "a\n");
  ASSERT_EQ(::symlink("docs/real.md", t.path("README.md").c_str()), 0);
  ASSERT_EQ(::symlink("README.md", t.path("LINK2.md").c_str()), 0);  // a chain of links
  auto file = InPlaceFile::open(t.path("LINK2.md"), kMax);
  ASSERT_TRUE(file) << file.error().message();
  ASSERT_TRUE(file->replace("b\n"));
  EXPECT_TRUE(stdfs::is_symlink(t.path("README.md")));
  EXPECT_TRUE(stdfs::is_symlink(t.path("LINK2.md")));
  EXPECT_EQ(read_file(target), "b\n");
  // The recovery copy is made next to the target, not the link.
  EXPECT_EQ(file->target(), stdfs::canonical(target).string());
}

TEST(ClaimsIoWriteInPlace, RefusesWhatCannotOrMustNotBeWritten) {
  TempDir t;
  auto read_only = t.write("ro.md", "x\n");
  ASSERT_EQ(::chmod(read_only.c_str(), 0444), 0);
  auto ro = InPlaceFile::open(read_only, kMax);
  ASSERT_FALSE(ro);
  EXPECT_NE(ro.error().what.find("read-only"), std::string::npos) << ro.error().message();
  EXPECT_EQ(stat_of(read_only).st_mode & 07777, 0444u);

  ASSERT_EQ(::symlink("missing.md", t.path("dangling.md").c_str()), 0);
  auto dangling = InPlaceFile::open(t.path("dangling.md"), kMax);
  ASSERT_FALSE(dangling);
  EXPECT_NE(dangling.error().what.find("does not exist"), std::string::npos)
      << dangling.error().message();

  ASSERT_EQ(::symlink("loop-b.md", t.path("loop-a.md").c_str()), 0);
  ASSERT_EQ(::symlink("loop-a.md", t.path("loop-b.md").c_str()), 0);
  auto loop = InPlaceFile::open(t.path("loop-a.md"), kMax);
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.error().what.find("loop"), std::string::npos) << loop.error().message();

  ASSERT_EQ(::mkfifo(t.path("fifo.md").c_str(), 0644), 0);
  auto fifo = InPlaceFile::open(t.path("fifo.md"), kMax);  // must not hang
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().what.find("FIFO"), std::string::npos) << fifo.error().message();

  auto dir = InPlaceFile::open(t.dir(), kMax);
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().what.find("directory"), std::string::npos);
  EXPECT_FALSE(InPlaceFile::open(t.path("absent.md"), kMax));
  EXPECT_FALSE(InPlaceFile::open("", kMax));
  auto big = t.write("big.md", std::string(100, 'x'));
  EXPECT_FALSE(InPlaceFile::open(big, 10));
}

TEST(ClaimsIoWriteInPlace, ANonRootUserCannotWriteAnotherUsersFile) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to create a file owned by someone else";
  TempDir t;
  auto path = t.write("README.md", "x\n");
  ASSERT_EQ(::chmod(t.dir().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    auto file = InPlaceFile::open(path, kMax);
    bool refused = !file && (file.error().what.find("not writable") != std::string::npos ||
                             file.error().what.find("Permission denied") != std::string::npos);
    ::_exit(refused ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "cannot drop privileges here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(read_file(path), "x\n");
}

TEST(ClaimsIoWriteInPlace, ASecondWriterIsRefusedWhileTheFirstHoldsTheFile) {
  TempDir t;
  auto path = t.write("README.md", "x\n");
  auto first = InPlaceFile::open(path, kMax);
  ASSERT_TRUE(first);
  auto second = InPlaceFile::open(path, kMax);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().what.find("locked"), std::string::npos) << second.error().message();
}

// pwrite that writes part of the data, then fails: a disk that fills up mid-write.
int g_pwrite_calls = 0;
int g_fail_from_call = 0;
ssize_t failing_pwrite(int fd, const void* buf, std::size_t n, off_t offset) {
  if (++g_pwrite_calls >= g_fail_from_call) {
    if (n > 4) (void)::pwrite(fd, buf, 4, offset);  // a torn write
    errno = ENOSPC;
    return -1;
  }
  return ::pwrite(fd, buf, n, offset);
}

TEST(ClaimsIoWriteInPlace, AFailedWriteIsUndone) {
  TempDir t;
  auto path = t.write("README.md", "the original text\n");
  auto file = InPlaceFile::open(path, kMax);
  ASSERT_TRUE(file);
  g_pwrite_calls = 0;
  g_fail_from_call = 1;  // the new contents fail, writing the old ones back works
  InPlaceWriteOps ops{[](int fd, const void* buf, std::size_t n, off_t off) -> ssize_t {
                        return g_pwrite_calls == 0 ? failing_pwrite(fd, buf, n, off)
                                                   : ::pwrite(fd, buf, n, off);
                      },
                      &::fsync};
  auto st = file->replace("REPLACEMENT TEXT THAT NEVER LANDS\n", ops);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().what.find("nothing changed"), std::string::npos) << st.error().message();
  EXPECT_EQ(read_file(path), "the original text\n");
  EXPECT_TRUE(recovery_copies(t, "README.md").empty());
}

TEST(ClaimsIoWriteInPlace, WhenEvenTheUndoFailsTheErrorNamesTheCompleteCopy) {
  TempDir t;
  auto path = t.write("README.md", "the original text\n");
  auto file = InPlaceFile::open(path, kMax);
  ASSERT_TRUE(file);
  g_pwrite_calls = 0;
  g_fail_from_call = 1;
  auto st = file->replace("the complete new text\n", InPlaceWriteOps{&failing_pwrite, &::fsync});
  ASSERT_FALSE(st);
  auto copies = recovery_copies(t, "README.md");
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(read_file(copies[0]), "the complete new text\n");
  EXPECT_EQ(stat_of(copies[0]).st_mode & 07777, 0600u)
      << "the copy of a private README must stay private";
  EXPECT_NE(st.error().hint.find(copies[0]), std::string::npos) << st.error().message();
}

TEST(ClaimsIoWriteInPlace, AProcessKilledMidWriteLeavesTheCompleteNewFileBeside) {
  TempDir t;
  auto path = t.write("README.md", std::string(5000, 'o'));
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto file = InPlaceFile::open(path, kMax);
    if (!file) ::_exit(2);
    // Dies after the first bytes, as SIGKILL or a power cut would stop it.
    (void)file->replace(
        std::string(6000, 'n'),
        InPlaceWriteOps{[](int fd, const void* buf, std::size_t, off_t off) -> ssize_t {
                          (void)::pwrite(fd, buf, 100, off);
                          ::_exit(9);
                        },
                        &::fsync});
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 9);
  auto copies = recovery_copies(t, "README.md");
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(read_file(copies[0]), std::string(6000, 'n'));
}

TEST(ClaimsIoWriteInPlace, NoDirectoryToHoldTheCopyMeansNoWrite) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write into any directory";
  TempDir t;
  auto path = t.write("sub/README.md", "x\n");
  ASSERT_EQ(::chmod(t.path("sub").c_str(), 0555), 0);
  auto file = InPlaceFile::open(path, kMax);
  ASSERT_TRUE(file) << file.error().message();
  auto st = file->replace("y\n");
  ::chmod(t.path("sub").c_str(), 0755);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().what.find("recovery copy"), std::string::npos) << st.error().message();
  EXPECT_EQ(read_file(path), "x\n");
}

}  // namespace
}  // namespace jetgate::fs
