// SPDX-License-Identifier: Apache-2.0
// Shared by the libFuzzer targets: the input as text, and a scratch directory for
// the parsers that only read through a root.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "jetgate/fs/root_fs.hpp"

namespace jetgate::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// One directory per fuzzing process, on a RAM disk when there is one.
class ScratchRoot {
 public:
  ScratchRoot() {
    std::string templ = (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    templ += "/jetgate-fuzz-XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) ::abort();
    dir_ = templ;
  }
  ~ScratchRoot() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchRoot(const ScratchRoot&) = delete;
  ScratchRoot& operator=(const ScratchRoot&) = delete;
  const std::string& dir() const { return dir_; }
  void write(const std::string& name, const uint8_t* data, size_t size) const {
    std::ofstream(dir_ + "/" + name, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }

 private:
  std::string dir_;
};

}  // namespace jetgate::fuzz
