// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/dry_run.hpp"

#include <fmt/format.h>

namespace jetgate::gate {

DryRun dry_run(const policy::Gate& gate, const nlohmann::json& platform) {
  DryRun d;
  d.gate = gate.id;
  d.platform =
      policy::evaluate_requirements(policy::platform_part(gate.requirements), platform, nullptr);
  const policy::Requirements gpu = policy::gpu_part(gate.requirements);
  if (gpu.cuda) d.on_device.push_back("cuda (a CUDA driver that loads, with at least one device)");
  if (gpu.min_cuda_driver) d.on_device.push_back("min_cuda_driver " + *gpu.min_cuda_driver);
  if (gpu.min_memory_bytes)
    d.on_device.push_back(fmt::format("min_memory_bytes {}", *gpu.min_memory_bytes));
  for (const auto& id : gate.probe_ids()) d.would_run.push_back("probe " + id);
  if (gate.command) {
    std::string argv = fmt::format("{}", fmt::join(gate.command->argv, " "));
    d.would_run.push_back(fmt::format("command: {} (JUnit report: {})", argv, gate.command->junit));
  }
  return d;
}

std::vector<CheckRow> dry_run_rows(const DryRun& d) {
  std::vector<CheckRow> rows = requirement_rows(d.platform);
  for (const auto& r : d.on_device)
    rows.push_back({"requirement", r, Outcome::not_run,
                    "checked when the gate runs on the machine itself", ""});
  for (const auto& step : d.would_run)
    rows.push_back({"step", step, Outcome::not_run,
                    d.would_run_here() ? "would run" : "would not run: a requirement is not met",
                    ""});
  return rows;
}

}  // namespace jetgate::gate
