// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/gpu_facts.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/evidence/power_notes.hpp"
#include "jetgate/facts/container_host.hpp"
#include "jetgate/facts/cuda_nodes.hpp"
#include "jetgate/facts/gpu_stack.hpp"
#include "jetgate/probes/sync_classify.hpp"

namespace jetgate::evidence {

namespace {

// A documented key inside the /platform and /gpu objects these functions join.
keys::Pointer in_platform(const keys::Pointer& key) {
  return keys::relative(key, keys::kPlatform);
}
keys::Pointer in_gpu(const keys::Pointer& key) {
  return keys::relative(key, keys::kGpu);
}

// The nodes the CUDA child held open with a context on the probe device, against
// the ones this platform should use: /platform/tegra/driver/cuda_nodes, and a
// note for `probe`'s text naming each one missing.
void note_cuda_nodes(probes::CudaSection& section, nlohmann::json& platform) {
  // /gpu/devices/N/open_device_nodes is documented in probes.md with the rest of /gpu.
  const auto ptr = in_gpu(keys::kDevices) / 0 / "open_device_nodes";
  if (!section.gpu.contains(ptr)) return;
  auto cmp = facts::compare_cuda_nodes(platform, section.gpu[ptr]);
  if (cmp.is_null()) return;
  if (!cmp["missing"].empty()) {
    std::string list;
    for (const auto& m : cmp["missing"]) list += (list.empty() ? "" : ", ") + m.get<std::string>();
    section.notes.push_back("the CUDA process did not open " + list + ", which " +
                            cmp["platform"].get<std::string>() + " uses (" +
                            cmp["source"].get<std::string>() + ")");
  }
  if (platform.contains(in_platform(keys::kTegraDriver)))
    platform[in_platform(keys::kTegraDriverCudaNodes)] = std::move(cmp);
}

// A failed cuInit, decoded with the causes data/gpu-stack.json gives for this stack.
void note_cuinit_causes(probes::CudaSection& section, const nlohmann::json& platform) {
  const auto ptr = in_gpu(keys::kDriverError);
  if (!section.gpu.contains(ptr) || !section.gpu[ptr].is_string()) return;
  const auto& table = facts::builtin_gpu_stack_table();
  if (!table.ok()) return;
  const auto* stack = facts::select_gpu_stack(platform);
  for (const auto* c : table->cuinit_causes(section.gpu[ptr].get<std::string>(), stack))
    section.notes.push_back(fmt::format("cuInit returned {} ({}){}: {} (source: {})", c->name,
                                        c->code, stack ? " on " + stack->name : "", c->cause,
                                        c->source));
}

// Only where the sync_path probe measured blocking-sync waits as busy-polling
// (details.modes[].wait, classified from the CPU share per wait) do the facts
// name the causes the sources give for this stack; nothing is predicted.
void note_polling_causes(probes::CudaSection& section, const nlohmann::json& platform) {
  bool polling = false;
  for (const auto& r : section.probes) {
    if (r.id != "sync_path" || !r.details.contains("modes") || !r.details["modes"].is_array())
      continue;
    for (const auto& m : r.details["modes"])
      if (m.is_object() && m.value("mode", "") == "blocking_sync" &&
          m.value("wait", "") == probes::to_string(probes::WaitKind::busy_polling))
        polling = true;
  }
  if (!polling) return;
  const auto* stack = facts::select_gpu_stack(platform);
  if (stack == nullptr || stack->polling_causes.empty()) return;
  std::string causes;
  for (const auto& c : stack->polling_causes) causes += (causes.empty() ? "" : "; ") + c;
  section.notes.push_back(fmt::format(
      "sync_path measured busy-polling blocking-sync waits; the causes the sources name for {} "
      "are: {} (source: {})",
      stack->name, causes, stack->source));
}

}  // namespace

void join_gpu_facts(probes::CudaSection& section, nlohmann::json& platform) {
  cite_power_facts(section, platform);
  std::optional<std::string> driver;
  const auto ptr = in_gpu(keys::kDriverVersion);
  if (section.gpu.contains(ptr) && section.gpu[ptr].is_string())
    driver = section.gpu[ptr].get<std::string>();
  auto check = facts::check_container_l4t(platform, driver);
  if (!check.is_null()) platform[in_platform(keys::kContainerL4tCheck)] = std::move(check);
  note_cuda_nodes(section, platform);
  note_cuinit_causes(section, platform);
  note_polling_causes(section, platform);
}

}  // namespace jetgate::evidence
