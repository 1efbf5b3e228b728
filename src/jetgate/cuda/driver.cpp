// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/driver.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

namespace jetgate::cuda {

std::vector<std::string> builtin_driver_paths() {
  return {
      "libcuda.so.1",
      "/usr/lib/aarch64-linux-gnu/nvidia/libcuda.so.1",
      "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1",
      "/usr/local/cuda/compat/libcuda.so.1",
      "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
      "/usr/lib64/libcuda.so.1",
      "/usr/local/nvidia/lib64/libcuda.so.1",
  };
}

std::vector<std::string> driver_search_paths(const std::vector<std::string>& explicit_paths) {
  if (!explicit_paths.empty()) return explicit_paths;
  const char* env = std::getenv("JETGATE_CUDA_DRIVER");
  if (env == nullptr || *env == '\0') return builtin_driver_paths();
  std::vector<std::string> paths;
  std::stringstream in(env);
  for (std::string item; std::getline(in, item, ':');)
    if (!item.empty()) paths.push_back(item);
  return paths;
}

namespace {

// Fills api from handle; returns the first symbol that is missing, or "".
std::string resolve_entry_points(void* handle, DriverApi& api) {
// member and type are names, not expressions: they cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define JETGATE_RESOLVE_ENTRY_POINT(member, symbol, type)                         \
  api.member = reinterpret_cast<std::add_pointer_t<type>>(dlsym(handle, symbol)); \
  if (api.member == nullptr) return symbol;
  // NOLINTEND(bugprone-macro-parentheses)
  JETGATE_CUDA_DRIVER_ENTRY_POINTS(JETGATE_RESOLVE_ENTRY_POINT)
#undef JETGATE_RESOLVE_ENTRY_POINT
  return {};
}

std::string dl_error_text() {
  const char* e = dlerror();
  return e != nullptr ? e : "unknown dlopen error";
}

}  // namespace

Result<Driver> Driver::load(const std::vector<std::string>& paths) {
  std::vector<std::string> absent;    // nothing at that path
  std::vector<std::string> rejected;  // something there, but unusable: say why
  for (const auto& path : paths) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      std::string why = dl_error_text();
      if (why.find("No such file or directory") != std::string::npos)
        absent.push_back(path);
      else
        rejected.push_back(why);
      continue;
    }
    Driver d;
    std::string missing = resolve_entry_points(handle, d.api_);
    if (!missing.empty()) {
      // Never dlclose a driver: its destructors are not known to be safe.
      rejected.push_back(
          fmt::format("{}: lacks entry point {} (not a CUDA driver, or one older "
                      "than CUDA 10.2)",
                      path, missing));
      continue;
    }
    d.library_ = path;
    return d;
  }
  std::string where;
  for (const auto& r : rejected) where += (where.empty() ? "" : "; ") + r;
  if (!absent.empty()) {
    std::string list;
    for (const auto& a : absent) list += (list.empty() ? "" : ", ") + a;
    where += (where.empty() ? "" : "; ") + fmt::format("not found at {}", list);
  }
  return make_error(rejected.empty() ? "libcuda.so.1 not found" : "libcuda.so.1 not usable", where,
                    "install the NVIDIA driver (JetPack on Jetson), or point JETGATE_CUDA_DRIVER "
                    "at libcuda.so.1");
}

std::string Driver::describe(CUresult rc) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.get_error_name == nullptr || api_.get_error_name(rc, &name) != kCudaSuccess ||
      name == nullptr)
    name = nullptr;
  if (api_.get_error_string == nullptr || api_.get_error_string(rc, &text) != kCudaSuccess)
    text = nullptr;
  std::string out = name != nullptr ? name : result_name(rc);
  if (text != nullptr && *text != '\0') out += fmt::format(": {}", text);
  return out;
}

Error Driver::error(const std::string& call, CUresult rc) const {
  return make_error(fmt::format("{} failed: {}", call, describe(rc)), library_, result_hint(rc));
}

std::string format_cuda_version(int encoded) {
  if (encoded <= 0) return "unknown";
  return fmt::format("{}.{}", encoded / 1000, (encoded % 1000) / 10);
}

int parse_cuda_version(const std::string& text) {
  int major = 0;
  int minor = 0;
  char dot = 0;
  std::istringstream in(text);
  if (!(in >> major >> dot >> minor) || dot != '.' || major < 0 || minor < 0 || minor > 99)
    return -1;
  std::string rest;
  if (in >> rest) return -1;
  return major * 1000 + minor * 10;
}

}  // namespace jetgate::cuda
