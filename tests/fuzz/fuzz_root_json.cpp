// SPDX-License-Identifier: Apache-2.0
// jetgate-root.json, the sidecar of a recorded root, read the way `probe --root`
// reads it: written into a scratch root, loaded by the collectors' context, then
// the machine's architecture (collect_host) and every device node it records
// (CollectContext::node, over placeholders of the nodes recorded roots hold, and
// over the first node paths the input itself names). Only what reads the sidecar
// runs, not the whole of collect_platform, so the target runs fast enough to
// reach ten million inputs (docs/building.md, fuzzing).
#include <sys/stat.h>

#include <cstdio>
#include <vector>

#include "fuzz_input.hpp"
#include "jetgate/facts/collect_context.hpp"

namespace {

// The device nodes the recorded machines in tests/fixtures keep in their sidecars:
// a placeholder file for each, so that node() reaches the sidecar's record.
const char* const kNodes[] = {"/dev/nvhost-ctrl", "/dev/nvhost-ctrl-gpu", "/dev/nvhost-gpu",
                              "/dev/nvmap",       "/dev/host1x-fence",    "/dev/nvgpu/igpu0/ctrl",
                              "/dev/nvidiactl",   "/dev/nvidia0",         "/dev/nvidia-uvm"};

const jetgate::fuzz::ScratchRoot& scratch() {
  static const jetgate::fuzz::ScratchRoot root;
  static const bool placeholders = [] {
    ::mkdir((root.dir() + "/dev").c_str(), 0755);
    ::mkdir((root.dir() + "/dev/nvgpu").c_str(), 0755);
    ::mkdir((root.dir() + "/dev/nvgpu/igpu0").c_str(), 0755);
    for (const char* node : kNodes)
      if (std::FILE* f = std::fopen((root.dir() + node).c_str(), "w")) std::fclose(f);
    return true;
  }();
  (void)placeholders;
  return root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& root = scratch();
  root.write("jetgate-root.json", data, size);
  auto fs = jetgate::fs::RootFs::open(root.dir());
  if (!fs.ok()) return 0;
  const jetgate::facts::CollectOptions options{};
  std::vector<jetgate::facts::Warning> warnings;
  jetgate::facts::CollectContext ctx(*fs, options, warnings);
  nlohmann::json host = nlohmann::json::object();
  jetgate::facts::collect_host(ctx, host);
  for (const char* node : kNodes) (void)ctx.node(node);
  const auto& side = ctx.sidecar();
  if (auto nodes = side.find("nodes"); nodes != side.end() && nodes->is_object()) {
    int n = 0;
    for (const auto& [path, record] : nodes->items()) {
      if (++n > 32) break;
      (void)record;
      (void)ctx.node(path);
    }
  }
  return 0;
}
