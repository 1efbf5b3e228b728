// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/registry.hpp"

#include <algorithm>

#include "jetgate/cuda/driver_types.hpp"

namespace jetgate::probes {
namespace {

// A speed that is better higher is watched for a drop; nothing else is watched
// unless its entry says so (watched_for_rise).
MetricSpec metric(std::string name, std::string unit, Better better, bool speed, std::string what) {
  std::optional<Watch> watch;
  if (speed && better == Better::higher) watch = Watch::drop;
  return {std::move(name), std::move(unit), better, speed, std::move(what), watch};
}

MetricSpec watched_for_rise(MetricSpec m) {
  m.watch = Watch::rise;
  return m;
}

std::vector<ProbeSpec> build_registry() {
  const auto H = Better::higher, L = Better::lower, N = Better::neither;
  std::vector<ProbeSpec> r;

  r.push_back(
      {"launch",
       ProbeKind::cuda,
       "one kernel writes a known pattern, read back and checked",
       {metric("elements", "count", N, false, "values the kernel wrote"),
        metric("first_launch_us", "us", L, false, "launch to completion of the first kernel"),
        metric("wrong_elements", "count", L, false, "values read back wrong")}});

  r.push_back(
      {"memory",
       ProbeKind::cuda,
       "a share of free device memory written and verified",
       {metric("free_bytes", "bytes", N, false, "free device memory before the test"),
        metric("target_bytes", "bytes", N, false, "what the probe meant to test"),
        metric("tested_bytes", "bytes", H, false, "what it wrote and verified"),
        metric("tested_fraction_of_free", "fraction", H, false, "tested bytes over free bytes"),
        metric("mismatched_words", "count", L, false, "words read back wrong")}});

  r.push_back(
      {"bandwidth",
       ProbeKind::cuda,
       "copy and read bandwidth against the theoretical peak",
       {metric("d2d_gbps", "GB/s", H, true, "device-to-device copy, read + write"),
        metric("d2d_copy_engine_gbps", "GB/s", H, true, "device-to-device by the copy engine"),
        metric("d2d_sm_copy_gbps", "GB/s", H, true, "device-to-device by a copy kernel"),
        metric("h2d_gbps", "GB/s", H, true, "pinned host to device"),
        metric("d2h_gbps", "GB/s", H, true, "device to pinned host"),
        metric("read_gbps", "GB/s", H, true, "read-only kernel"),
        metric("theoretical_gbps", "GB/s", N, false, "memory clock x bus width, from the driver"),
        metric("d2d_fraction_of_peak", "fraction", H, true, "d2d_gbps over theoretical_gbps"),
        metric("read_fraction_of_peak", "fraction", H, true, "read_gbps over theoretical_gbps"),
        metric("device_buffer_bytes", "bytes", N, false, "device buffer size"),
        metric("host_buffer_bytes", "bytes", N, false, "pinned host buffer size")},
       true,
       true});

  ProbeSpec sync{"sync_path",
                 ProbeKind::cuda,
                 "stream-synchronisation round trip and the CPU it costs, per scheduling mode",
                 {},
                 true,
                 true};
  for (const auto& m : sync_modes()) {
    sync.metrics.push_back(metric("sync_" + m + "_rtt_median_us", "us", L, true,
                                  "median launch-and-wait round trip, " + m));
    sync.metrics.push_back(
        metric("sync_" + m + "_rtt_p99_us", "us", L, true, "99th percentile round trip, " + m));
    sync.metrics.push_back(
        watched_for_rise(metric("sync_" + m + "_cpu_fraction", "fraction", L, true,
                                "CPU time over wall time while waiting, " + m)));
  }
  r.push_back(std::move(sync));

  ProbeSpec decode{
      "decode",
      ProbeKind::cuda,
      "batch-1 LLM decode with a real model's shapes, against the memory-read bound",
      {metric("decode_tok_s", "tok/s", H, true, "tokens per second, best sync mode"),
       metric("decode_bytes_per_token", "bytes", N, false, "bytes read per token"),
       metric("decode_weight_bytes_per_token", "bytes", N, false, "weight bytes per token"),
       metric("decode_kv_bytes_per_token", "bytes", N, false, "KV-cache bytes per token"),
       metric("decode_achieved_gbps", "GB/s", H, true, "bytes per token x tokens per second"),
       metric("decode_latency_p50_us", "us", L, true, "median token latency"),
       metric("decode_latency_p90_us", "us", L, true, "90th percentile token latency"),
       metric("decode_latency_p99_us", "us", L, true, "99th percentile token latency"),
       metric("decode_host_cpu_us_per_token", "us", L, true, "host CPU time per token"),
       metric("decode_burst_tok_s", "tok/s", H, true, "tokens per second without per-token waits"),
       metric("decode_read_gbps", "GB/s", H, true, "read bandwidth measured in the same run"),
       metric("decode_bound_tok_s", "tok/s", N, false, "what that read bandwidth allows"),
       metric("decode_fraction_of_bound", "fraction", H, true, "decode_tok_s over the bound"),
       metric("decode_expected_tok_s", "tok/s", N, false, "what the theoretical bandwidth allows"),
       metric("decode_fraction_of_theoretical", "fraction", H, true,
              "decode_tok_s over decode_expected_tok_s"),
       metric("decode_free_bytes", "bytes", N, false, "free device memory when it was skipped"),
       metric("decode_needed_bytes", "bytes", N, false, "what the model needs")},
      false,  // seconds of decoding per sync mode: only when asked
      true};
  for (const auto& m : sync_modes()) {
    decode.metrics.push_back(
        metric("decode_" + m + "_tok_s", "tok/s", H, true, "tokens per second, " + m));
    decode.metrics.push_back(metric("decode_" + m + "_latency_p99_us", "us", L, true,
                                    "99th percentile token latency, " + m));
    decode.metrics.push_back(metric("decode_" + m + "_cpu_fraction", "fraction", L, true,
                                    "CPU time over wall time, " + m));
    decode.metrics.push_back(metric("decode_" + m + "_host_cpu_us_per_token", "us", L, true,
                                    "host CPU time per token, " + m));
  }
  r.push_back(std::move(decode));

  r.push_back({"nvhost_ctrl",
               ProbeKind::cuda,
               "the /dev/nvhost-ctrl syncpoint and fence ioctls (L4T 32-35), each answered right",
               {metric("nvhost_ioctls_answered", "count", H, false, "ioctls answered plausibly"),
                metric("nvhost_ioctls_checked", "count", N, false, "ioctls asked")},
               false,  // a Jetson bring-up question: only when named
               false});

  ProbeSpec python{"python_runtime",
                   ProbeKind::python,
                   "torch imports, sees the GPU and computes right on it",
                   {metric("cuda_device_count", "count", H, false, "devices torch sees"),
                    metric("device0_total_memory", "bytes", N, false, "device 0's memory")}};
  for (const char* check : {"elementwise", "matmul", "conv"})
    python.metrics.push_back(metric(std::string(check) + "_max_error_ratio", "fraction", L, false,
                                    std::string("largest error against the CPU, ") + check));
  r.push_back(std::move(python));

  ProbeSpec bnb{"bitsandbytes",
                ProbeKind::python,
                "bitsandbytes' native CUDA library loads and quantises right",
                {}};
  for (const char* check : {"nf4", "fp4", "int8_blockwise", "int8_matmul"})
    bnb.metrics.push_back(metric(std::string(check) + "_max_error_ratio", "fraction", L, false,
                                 std::string("largest error against the reference, ") + check));
  r.push_back(std::move(bnb));
  return r;
}

}  // namespace

const char* to_string(Better b) {
  switch (b) {
    case Better::higher:
      return "higher";
    case Better::lower:
      return "lower";
    case Better::neither:
      break;
  }
  return "neither";
}

const std::vector<std::string>& sync_modes() {
  static const std::vector<std::string> modes = [] {
    std::vector<std::string> out;
    for (const auto& m : cuda::kSchedModes) out.emplace_back(m.name);
    return out;
  }();
  return modes;
}

const std::vector<ProbeSpec>& probe_registry() {
  static const std::vector<ProbeSpec> registry = build_registry();
  return registry;
}

const ProbeSpec* find_probe_spec(std::string_view id) {
  for (const auto& p : probe_registry())
    if (p.id == id) return &p;
  return nullptr;
}

const MetricSpec* find_metric(const ProbeSpec& probe, std::string_view metric) {
  for (const auto& m : probe.metrics)
    if (m.name == metric) return &m;
  return nullptr;
}

std::vector<std::string> registered_probe_ids() {
  std::vector<std::string> ids;
  for (const auto& p : probe_registry()) ids.push_back(p.id);
  return ids;
}

std::vector<std::string> registered_probe_ids(ProbeKind kind) {
  std::vector<std::string> ids;
  for (const auto& p : probe_registry())
    if (p.kind == kind) ids.push_back(p.id);
  return ids;
}

std::vector<std::string> metric_names(const ProbeSpec& probe) {
  std::vector<std::string> names;
  for (const auto& m : probe.metrics) names.push_back(m.name);
  return names;
}

}  // namespace jetgate::probes
