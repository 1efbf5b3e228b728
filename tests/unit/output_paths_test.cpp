// SPDX-License-Identifier: Apache-2.0
// Outputs never destroy what is not a file (issue 21, class 5), and keys are
// never lost or half written (class 6).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>

#include "gate_command_support.hpp"
#include "jetgate/fs/atomic_write.hpp"

namespace jetgate {
namespace {

using namespace std::chrono_literals;
namespace stdfs = std::filesystem;

mode_t type_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & S_IFMT;
}

// A FIFO, a directory, a socket and links to them, in t.
std::vector<std::string> non_files(const test::TempDir& t) {
  EXPECT_EQ(::mkfifo(t.path("fifo").c_str(), 0644), 0);
  stdfs::create_directories(t.path("dir"));
  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::string sock = t.path("sock");
  if (sock.size() < sizeof addr.sun_path) {
    std::copy(sock.begin(), sock.end(), addr.sun_path);
    EXPECT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  ::close(s);
  stdfs::create_symlink(t.path("fifo"), t.path("link-to-fifo"));
  stdfs::create_symlink("/dev/null", t.path("link-to-null"));
  return {"fifo", "dir", "sock", "link-to-fifo", "link-to-null"};
}

TEST(OutputPaths, AtomicWritesNeverReplaceWhatIsNotAFile) {
  test::TempDir t;
  for (const auto& name : non_files(t)) {
    SCOPED_TRACE(name);
    mode_t before = type_of(t.path(name));
    auto w = fs::write_file_atomically(t.dir(), name, "x");
    ASSERT_FALSE(w.ok());
    EXPECT_NE(w.error().what.find("jetgate replaces only regular files"), std::string::npos)
        << w.error().what;
    EXPECT_EQ(type_of(t.path(name)), before);
    EXPECT_FALSE(fs::check_output_path(t.path(name)).ok());
  }
  // A regular file, a link to one and a new name are outputs as before.
  t.write("file", "old");
  stdfs::create_symlink(t.path("file"), t.path("link-to-file"));
  for (const char* name : {"file", "link-to-file", "new"}) {
    EXPECT_TRUE(fs::check_output_path(t.path(name)).ok()) << name;
    EXPECT_TRUE(fs::write_file_atomically(t.dir(), name, "x").ok()) << name;
  }
}

TEST(OutputPaths, CheckJunitAndSupportBadgeRefuseAFifo) {
  test::TempDir t;
  non_files(t);
  auto r = test::run_jetgate({"check", "--policy", test::source_dir() + "/data/default-policy.json",
                              "--junit", t.path("fifo")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(type_of(t.path("fifo")), static_cast<mode_t>(S_IFIFO));
  r = test::run_jetgate({"support", "--evidence-dir", t.dir(), "--badge", t.path("link-to-fifo")});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(type_of(t.path("link-to-fifo")), static_cast<mode_t>(S_IFLNK));
}

TEST(OutputPaths, RunJunitIsCheckedBeforeTheGateRuns) {
  test::GateRepo repo;
  repo.add_shell_gate("unit", "touch ran");
  stdfs::create_directories(repo.t.path("out-dir"));
  auto r = test::run_jetgate({"run", "unit", "--policy", repo.policy(), "--evidence-dir",
                              repo.t.path("ev"), "--junit", repo.t.path("out-dir")},
                             {repo.ceiling()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--junit"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(repo.t.path("ran"))) << "the gate ran before its output was checked";
}

TEST(OutputPaths, KeygenForceKeepsTheOldPairUntilTheNewOneIsWritten) {
  test::TempDir t;
  ASSERT_EQ(test::run_jetgate({"keygen", t.path("k"), "--owner", "o"}).exit_code, 0);
  std::string secret = test::read_file(t.path("k"));
  // The public half's place is taken by a directory: the new pair cannot be written.
  stdfs::remove(t.path("k.pub.json"));
  stdfs::create_directories(t.path("k.pub.json/inside"));
  auto r = test::run_jetgate({"keygen", t.path("k"), "--owner", "o", "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(test::read_file(t.path("k")), secret) << "the old secret key was lost";
  EXPECT_TRUE(stdfs::is_directory(t.path("k.pub.json/inside")));
  for (const auto& e : stdfs::directory_iterator(t.dir()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(OutputPaths, KeygenRefusesAnOwnerThatIsNotUtf8AndWritesNothing) {
  test::TempDir t;
  auto r = test::run_jetgate({"keygen", t.path("k"), "--owner", "runner-\xff"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_FALSE(stdfs::exists(t.path("k")));
  EXPECT_FALSE(stdfs::exists(t.path("k.pub.json")));
}

TEST(OutputPaths, SignKeyNamingAFifoIsRefusedWithoutWaiting) {
  test::GateRepo repo;
  repo.add_shell_gate("unit", "touch ran");
  ASSERT_EQ(::mkfifo(repo.t.path("key.fifo").c_str(), 0600), 0);
  auto args = repo.run_args("unit", repo.t.path("ev"));
  args.insert(args.end(), {"--sign-key", repo.t.path("key.fifo")});
  test::BackgroundJetgate jetgate(args, {repo.ceiling()});
  EXPECT_EQ(jetgate.wait(20s), 2) << "jetgate waited for a writer on the FIFO";
  EXPECT_NE(jetgate.err().find("not a regular file"), std::string::npos) << jetgate.err();
  EXPECT_FALSE(stdfs::exists(repo.t.path("ran")));
}

}  // namespace
}  // namespace jetgate
