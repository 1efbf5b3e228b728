// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/root_fs.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"

namespace jetgate::fs {
namespace {

TEST(RootFs, MissingRootIsAnErrorNamingIt) {
  auto r = RootFs::open("/nonexistent/jetgate-root");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("/nonexistent/jetgate-root"), std::string::npos);
}

TEST(RootFs, RootThatIsAFileIsAnError) {
  test::TempDir t;
  t.write("file", "x");
  auto r = RootFs::open(t.path("file"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().hint.find("--root takes a directory"), std::string::npos);
}

TEST(RootFs, ReadsRelativeToRoot) {
  test::TempDir t;
  t.write("etc/os-release", "ID=debian\n");
  auto root = RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto text = root->read("/etc/os-release");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(*text, "ID=debian\n");
  EXPECT_FALSE(root->is_live());
  EXPECT_EQ(root->display("/etc/os-release"), t.dir() + "/etc/os-release");
}

TEST(RootFs, MissingFileErrorNamesThePathUnderTheRoot) {
  test::TempDir t;
  auto root = RootFs::open(t.dir());
  auto text = root->read("/etc/nv_tegra_release");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().where, t.dir() + "/etc/nv_tegra_release");
}

TEST(RootFs, OversizedFileIsRefusedNotRead) {
  test::TempDir t;
  t.write("big", std::string(5000, 'a'));
  auto root = RootFs::open(t.dir());
  auto text = root->read("/big", 4096);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().what.find("larger than 4096"), std::string::npos);
  EXPECT_TRUE(root->read("/big", 5000).ok());
}

TEST(RootFs, FifoIsRefusedWithoutBlocking) {
  test::TempDir t;
  ASSERT_EQ(::mkfifo(t.path("fifo").c_str(), 0600), 0);
  auto root = RootFs::open(t.dir());
  auto text = root->read("/fifo");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().what.find("not a regular file"), std::string::npos);
  EXPECT_EQ(root->stat("/fifo").type, NodeType::fifo);
}

TEST(RootFs, AbsoluteSymlinkStaysInsideTheRecordedRoot) {
  test::TempDir t;
  t.write("sys/firmware/devicetree/base/model", "NVIDIA Jetson AGX Orin");
  std::filesystem::create_directories(t.path("proc"));
  std::filesystem::create_directory_symlink("/sys/firmware/devicetree/base",
                                            t.path("proc/device-tree"));
  auto root = RootFs::open(t.dir());
  auto text = root->read("/proc/device-tree/model");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(*text, "NVIDIA Jetson AGX Orin");
}

TEST(RootFs, StatReportsTypeAndMode) {
  test::TempDir t;
  t.write("dev/nvmap", "");
  ::chmod(t.path("dev/nvmap").c_str(), 0644);
  auto root = RootFs::open(t.dir());
  auto info = root->stat("/dev/nvmap");
  EXPECT_EQ(info.type, NodeType::regular);
  EXPECT_EQ(info.mode, 0644u);
  EXPECT_FALSE(root->stat("/dev/nvhost-ctrl").present());
}

TEST(RootFs, ListIsSorted) {
  test::TempDir t;
  t.write("etc/cdi/b.yaml", "");
  t.write("etc/cdi/a.json", "");
  auto root = RootFs::open(t.dir());
  auto names = root->list("/etc/cdi");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"a.json", "b.yaml"}));
  EXPECT_FALSE(root->list("/var/run/cdi").ok());
}

TEST(RootFs, LiveRootIsDetected) {
  auto root = RootFs::open("/");
  ASSERT_TRUE(root.ok());
  EXPECT_TRUE(root->is_live());
  EXPECT_EQ(root->display("/etc/os-release"), "/etc/os-release");
}

}  // namespace
}  // namespace jetgate::fs

namespace jetgate::fs {
namespace {

// The fallback for kernels without openat2 must keep links inside the root too.
TEST(RootFsPortable, LinksAndDotDotStayInsideTheRoot) {
  test::TempDir t;
  t.write("sys/firmware/devicetree/base/model", "inside");
  t.write("etc/os-release", "ID=recorded\n");
  std::filesystem::create_directories(t.path("proc"));
  std::filesystem::create_directory_symlink("/sys/firmware/devicetree/base",
                                            t.path("proc/device-tree"));
  std::filesystem::create_symlink("../../../../../../etc/os-release", t.path("escape"));
  std::filesystem::create_symlink("loop", t.path("loop"));
  int root = ::open(t.dir().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(root, 0);
  auto read_all = [](int fd) {
    std::string s(256, '\0');
    auto n = ::read(fd, s.data(), s.size());
    ::close(fd);
    s.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return s;
  };
  int fd = open_in_root_portable(root, "proc/device-tree/model", O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(read_all(fd), "inside");
  fd = open_in_root_portable(root, "escape", O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(read_all(fd), "ID=recorded\n") << "a link climbing above the root must stop at it";
  EXPECT_EQ(open_in_root_portable(root, "loop", O_RDONLY), -ELOOP);
  EXPECT_EQ(open_in_root_portable(root, "missing/file", O_RDONLY), -ENOENT);
  ::close(root);
}

}  // namespace
}  // namespace jetgate::fs
