// SPDX-License-Identifier: Apache-2.0
// sync_path: how the host waits for the GPU under each scheduling mode. For
// spin, yield and blocking sync (one context each): the round trip of a tiny
// kernel plus cuStreamSynchronize, many times, and the CPU time the process
// burns while waiting for one long kernel. sync_classify.cpp turns the
// numbers into a verdict.
#include <fmt/format.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>

#include "jetgate/cuda/context.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/sync_classify.hpp"

namespace jetgate::probes {

namespace {

constexpr int kWarmupRoundTrips = 200;
constexpr int kRoundTrips = 2000;
constexpr std::uint64_t kLongKernelNs = 100'000'000;

double cpu_seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Status round_trips(const cuda::Context& ctx, cuda::CUfunction tiny, cuda::CUstream s,
                   cuda::CUdeviceptr counter, SyncModeMeasurement& m) {
  m.round_trip_us.reserve(kRoundTrips);
  for (int i = 0; i < kWarmupRoundTrips + kRoundTrips; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (auto st = ctx.launch(tiny, 1, 32, s, counter); !st) return st;
    if (auto st = ctx.check(ctx.api().stream_synchronize(s), "cuStreamSynchronize"); !st) return st;
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= kWarmupRoundTrips)
      m.round_trip_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return Ok{};
}

// Process CPU time, not only the thread's: a driver that polls from a helper
// thread burns CPU just the same.
Status long_wait(const cuda::Context& ctx, cuda::CUfunction spin, cuda::CUstream s,
                 SyncModeMeasurement& m, nlohmann::json& extra) {
  if (auto st = ctx.launch(spin, 1, 1, s, kLongKernelNs); !st) return st;
  const double wall0 = wall_seconds();
  const double proc0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const double thread0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
  if (auto st = ctx.check(ctx.api().stream_synchronize(s), "cuStreamSynchronize"); !st) return st;
  m.wait_cpu_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - proc0;
  m.wait_wall_s = wall_seconds() - wall0;
  extra["thread_cpu_s"] = cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - thread0;
  return Ok{};
}

Result<SyncModeMeasurement> measure_mode(const cuda::Driver& driver, const cuda::SchedMode& mode,
                                         nlohmann::json& extra) {
  auto ctx = cuda::Context::create(driver, kProbeDevice, mode.flags);
  if (!ctx) return ctx.error();
  auto tiny = (*ctx)->kernel("jetgate_tiny");
  if (!tiny) return tiny.error();
  auto spin = (*ctx)->kernel("jetgate_spin_ns");
  if (!spin) return spin.error();
  auto stream = (*ctx)->stream();
  if (!stream) return stream.error();
  auto counter = (*ctx)->alloc(4);
  if (!counter) return counter.error();
  SyncModeMeasurement m;
  m.mode = mode.name;
  if (auto st = round_trips(**ctx, *tiny, stream->get(), counter->get(), m); !st) return st.error();
  if (auto st = long_wait(**ctx, *spin, stream->get(), m, extra); !st) return st.error();
  return m;
}

}  // namespace

ProbeResult probe_sync_path(const cuda::Driver& driver, const CudaOptions& /*options*/) {
  const std::string id = "sync_path";
  std::vector<SyncModeMeasurement> measured;
  nlohmann::json extras = nlohmann::json::object();
  for (const cuda::SchedMode& mode : cuda::kSchedModes) {
    auto m = measure_mode(driver, mode, extras[mode.name]);
    if (!m) {
      ProbeResult r = failed_probe(id, m.error());
      r.reason = fmt::format("scheduling mode {}: {}", mode.name, r.reason);
      return r;
    }
    measured.push_back(std::move(*m));
  }
  const SyncAssessment a = assess_sync_path(measured);
  ProbeResult r;
  r.id = id;
  r.status = a.status;
  r.reason = a.reason;
  add_sync_values(a, r);
  r.details["thread_cpu_s"] = extras;
  r.details["round_trips_per_mode"] = kRoundTrips;
  r.details["long_kernel_ms"] = static_cast<double>(kLongKernelNs) / 1e6;
  // Raw samples for recording fixtures (tests/fixtures/sync/); off by default
  // because they are thousands of numbers.
  if (const char* rec = std::getenv("JETGATE_RECORD_SYNC_PROFILE"); rec != nullptr && *rec == '1') {
    nlohmann::json profile = nlohmann::json::array();
    for (const auto& m : measured) profile.push_back(to_json(m));
    r.details["profile"] = profile;
  }
  return r;
}

}  // namespace jetgate::probes
