// SPDX-License-Identifier: Apache-2.0
// The CUDA driver, loaded at run time with dlopen so that jetgate builds and
// runs on machines without it. Load it only inside a child process
// (proc/child.hpp): a broken driver may hang or crash in any call.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/cuda/driver_entry_points.hpp"

namespace jetgate::cuda {

// One pointer per entry point of driver_entry_points.hpp.
struct DriverApi {
#define JETGATE_DECLARE_ENTRY_POINT(member, symbol, type) std::add_pointer_t<type> member = nullptr;
  JETGATE_CUDA_DRIVER_ENTRY_POINTS(JETGATE_DECLARE_ENTRY_POINT)
#undef JETGATE_DECLARE_ENTRY_POINT
};

// Where libcuda.so.1 is looked for, in order: the loader's own search first,
// then the places JetPack 6 (nvidia/), JetPack 4/5 (tegra/), the CUDA forward
// compatibility package, distributions and the NVIDIA container runtime put it.
std::vector<std::string> builtin_driver_paths();

// explicit_paths if not empty, else $JETGATE_CUDA_DRIVER (':'-separated) if
// set, else builtin_driver_paths().
std::vector<std::string> driver_search_paths(const std::vector<std::string>& explicit_paths);

class Driver {
 public:
  // Tries each path in order; the first library that opens and exports every
  // entry point wins. The error lists why each candidate was rejected.
  static Result<Driver> load(const std::vector<std::string>& paths);

  const DriverApi& api() const { return api_; }
  const std::string& library() const { return library_; }

  // "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected" (the driver's
  // own name and text when it has them, else jetgate's table).
  std::string describe(CUresult rc) const;
  // describe() plus what the user can do about it, when jetgate knows.
  Error error(const std::string& call, CUresult rc) const;

 private:
  DriverApi api_;
  std::string library_;
};

// jetgate's own name for a CUresult ("CUDA_ERROR_NO_DEVICE"), "CUresult 12345"
// when unknown.
std::string result_name(CUresult rc);
// What to do about rc, or "" when there is no better advice than its text.
std::string result_hint(CUresult rc);

// cuDriverGetVersion's 12060 -> "12.6".
std::string format_cuda_version(int encoded);
// "12.6" -> 12060; -1 when it is not MAJOR.MINOR.
int parse_cuda_version(const std::string& text);

}  // namespace jetgate::cuda
