// SPDX-License-Identifier: Apache-2.0
#include "cli/input_paths.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace jetgate::cli {
namespace {

constexpr const char* kPolicyHint =
    "name the policy file in your repository, e.g. --policy ci/conditional-test-policy.json";

bool names_a_stream(const std::string& path) {
  if (path == "-") return true;
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  for (const char* prefix : {"/dev/", "/proc/"})
    if (abs.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

Status check_policy_path(const std::string& path) {
  if (path.empty()) return make_error("--policy is empty", "", kPolicyHint);
  if (names_a_stream(path))
    return make_error(
        fmt::format(
            "--policy {} is not a regular file: reading the policy from stdin, a device or /proc "
            "is not supported (the policy's location is where its repository and "
            "coverage_paths are found)",
            path),
        "", kPolicyHint);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("--policy {}: {}", path, std::strerror(errno)), "", kPolicyHint);
  if (!S_ISREG(st.st_mode))
    return make_error(fmt::format("--policy {} is not a regular file{}", path,
                                  S_ISDIR(st.st_mode) ? " (it is a directory)" : ""),
                      "", kPolicyHint);
  return Ok{};
}

void add_cdi_dir_option(CLI::App* sub, std::vector<std::string>& dirs) {
  sub->add_option("--cdi-dir", dirs,
                  "Also read CDI specs from DIR (repeatable), a spec directory the container "
                  "runtime is configured with that jetgate finds in no configuration file; "
                  "/etc/cdi, /var/run/cdi, containerd's cdi_spec_dirs and Talos's /var/cdi are "
                  "always read")
      ->type_name("DIR")
      ->check([](const std::string& dir) -> std::string {
        if (dir.empty() || dir.front() != '/')
          return "--cdi-dir takes an absolute path on the machine read (e.g. /etc/cdi-extra)";
        return {};
      });
}

Result<std::string> read_stdin(std::size_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(fmt::format("cannot read: {}", std::strerror(errno)), "<stdin>");
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes)
      return make_error(fmt::format("is larger than {} bytes", max_bytes), "<stdin>",
                        "pipe a README file in");
  }
}

}  // namespace jetgate::cli
