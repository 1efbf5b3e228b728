// SPDX-License-Identifier: Apache-2.0
#include "jetgate/proc/open_files.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <array>

namespace jetgate::proc {

std::vector<std::string> open_device_nodes_in(const std::string& fd_dir) {
  std::vector<std::string> out;
  DIR* dir = ::opendir(fd_dir.c_str());
  if (dir == nullptr) return out;
  int seen = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    if (++seen > 4096) break;
    std::array<char, 512> target{};
    std::string link = fd_dir + "/" + e->d_name;
    auto n = ::readlink(link.c_str(), target.data(), target.size() - 1);
    if (n <= 0) continue;
    std::string path(target.data(), static_cast<std::size_t>(n));
    if (path.rfind("/dev/", 0) != 0) continue;
    // A node deleted while open reads "/dev/x (deleted)": keep the path.
    if (auto d = path.find(" (deleted)"); d != std::string::npos) path.erase(d);
    out.push_back(std::move(path));
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> open_device_nodes() {
  return open_device_nodes_in("/proc/self/fd");
}

}  // namespace jetgate::proc
