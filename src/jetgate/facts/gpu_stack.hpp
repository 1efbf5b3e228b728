// SPDX-License-Identifier: Apache-2.0
// What the CUDA path needs per SoC and L4T series (data/gpu-stack.json, compiled
// into the binary): the modules, the device nodes and which of them CUDA opens,
// whether /dev/nvhost-ctrl belongs to the stack, the causes to name once the
// sync_path probe has measured polling, and what cuInit errors mean there.
// The expected modules, the expected CUDA nodes, node access, the CDI
// cross-check, the nvhost_ctrl probe's expectations and the text report all
// read this one table.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/identifier.hpp"
#include "jetgate/core/result.hpp"

namespace jetgate::facts {

struct StackModule {
  std::string name;  // the kernel's name, "tegra_drm"
  bool cuda = false;
  std::string provides;
};

struct StackNode {
  std::string path;  // "/dev/nvmap", or "/dev/dri/renderD*" (prefix + digits)
  bool cuda_opens = false;
  std::string provides;
  std::optional<std::string> module;  // the module that creates it, when the sources say
};

enum class SyncFileExtract { absent, optional, not_applicable };

struct GpuStack {
  std::string id;    // "l4t36"
  std::string name;  // "L4T 36 (JetPack 6)"
  std::vector<std::string> socs;
  std::optional<int> l4t_low, l4t_high;  // nullopt: a stack without an L4T release
  std::optional<std::string> selected_by;
  bool nvhost_ctrl_part = false;  // /dev/nvhost-ctrl is part of this stack
  SyncFileExtract sync_file_extract = SyncFileExtract::not_applicable;
  std::vector<StackModule> modules;
  std::vector<StackNode> nodes;
  std::vector<std::string> polling_causes;
  std::string source;
};

struct CuinitCause {
  int code = 0;
  std::string name;                 // "CUDA_ERROR_NOT_SUPPORTED"
  std::vector<std::string> stacks;  // ids, or "*" for every stack
  std::string cause;
  std::string source;
};

class GpuStackTable {
 public:
  static Result<GpuStackTable> parse(std::string_view json_text);
  const std::vector<GpuStack>& stacks() const { return stacks_; }
  const GpuStack* find(std::string_view id) const;
  // The causes the sources give for a cuInit error on this stack (stack may be null).
  std::vector<const CuinitCause*> cuinit_causes(int code, const GpuStack* stack) const;
  // The same from the driver's error text ("cuInit failed: CUDA_ERROR_...: ..."),
  // matching the whole CUresult name; empty for another call or an unknown name.
  std::vector<const CuinitCause*> cuinit_causes(std::string_view error,
                                                const GpuStack* stack) const;

 private:
  std::vector<GpuStack> stacks_;
  std::vector<CuinitCause> cuinit_;
};

const Result<GpuStackTable>& builtin_gpu_stack_table();

// Whole-match comparison of a device path with a table path (core/identifier.hpp):
// equal, or, for a table path ending in '*', the prefix followed by one or more
// digits only ("/dev/dri/renderD*" matches renderD128, never renderD128x or renderD).
using jetgate::node_path_matches;

// The row for this platform (the /platform object: tegra.is_tegra, soc, l4t,
// driver.modules, and driver.stack once collect_module_provenance chose it),
// with `installed` the modules the kernel has installed (modules.dep,
// modules.builtin; may be empty). Null when no row applies.
const GpuStack* select_gpu_stack(const nlohmann::json& platform,
                                 const std::vector<std::string>& installed = {});

// "sync-file extract absent" etc. as the JSON/text spell it.
const char* to_string(SyncFileExtract s);

// {id, name, nvhost_ctrl, sync_file_extract, source} for /platform/tegra/driver/stack.
nlohmann::json stack_json(const GpuStack& s);

}  // namespace jetgate::facts
