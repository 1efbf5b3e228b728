// SPDX-License-Identifier: Apache-2.0
// bandwidth: device-to-device, host-to-device and device-to-host copy rates,
// measured as nvbandwidth does: a spin kernel holds the stream while the
// start event, the copies and the end event are queued, so the host's enqueue
// cost is not timed; each figure is the median of several samples; buffers
// are far larger than the L2 cache. Device-to-device counts bytes read plus
// bytes written (as bandwidthTest and PyTorch-based figures do) and is taken
// both through the copy engines and through an SM copy kernel; the faster is
// the reported figure. Read-only bandwidth (cuda/read_bandwidth.hpp) is the
// ceiling of streaming work such as LLM decoding.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/device_facts.hpp"
#include "jetgate/cuda/read_bandwidth.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/stats.hpp"

namespace jetgate::probes {

namespace {

constexpr std::size_t kDeviceBufferBytes = std::size_t{512} << 20;
constexpr std::size_t kHostBufferBytes = std::size_t{128} << 20;
constexpr std::uint64_t kHoldNs = 2'000'000;  // far longer than queueing a sample takes
constexpr unsigned kCopyBlock = 256;
// Below this share of the theoretical peak the device-to-device figure is a WARN.
constexpr double kWarnFractionOfPeak = 0.5;

struct Sampling {
  int warmups;
  int samples;
  int copies_per_sample;
};
constexpr Sampling kDeviceSampling{1, 5, 8};
constexpr Sampling kHostSampling{1, 3, 2};

class CopyTimer {
 public:
  CopyTimer(cuda::Context& ctx, cuda::CUstream stream, cuda::CUfunction spin, cuda::CUevent start,
            cuda::CUevent end)
      : ctx_(ctx), stream_(stream), spin_(spin), start_(start), end_(end) {}

  // GB/s over the samples' median; bytes_per_copy counts what one copy moves.
  Result<double> measure(const std::function<Status()>& copy, double bytes_per_copy,
                         const Sampling& s, std::vector<double>* samples_gbps) const {
    for (int i = 0; i < s.warmups + s.samples; ++i) {
      auto ms = time_sample(copy, s.copies_per_sample);
      if (!ms) return ms.error();
      if (i >= s.warmups)
        samples_gbps->push_back(bytes_per_copy * s.copies_per_sample / (*ms * 1e-3) / 1e9);
    }
    return median(*samples_gbps);
  }

 private:
  Result<double> time_sample(const std::function<Status()>& copy, int copies) const {
    const auto& api = ctx_.api();
    if (auto st = ctx_.launch(spin_, 1, 1, stream_, kHoldNs); !st) return st.error();
    if (auto st = ctx_.check(api.event_record(start_, stream_), "cuEventRecord"); !st)
      return st.error();
    for (int i = 0; i < copies; ++i)
      if (auto st = copy(); !st) return st.error();
    if (auto st = ctx_.check(api.event_record(end_, stream_), "cuEventRecord"); !st)
      return st.error();
    if (auto st = ctx_.check(api.event_synchronize(end_), "cuEventSynchronize"); !st)
      return st.error();
    float ms = 0;
    if (auto st = ctx_.check(api.event_elapsed_time(&ms, start_, end_), "cuEventElapsedTime"); !st)
      return st.error();
    if (!(ms > 0)) return make_error("a copy sample took no measurable time");
    return static_cast<double>(ms);
  }

  cuda::Context& ctx_;
  cuda::CUstream stream_;
  cuda::CUfunction spin_;
  cuda::CUevent start_;
  cuda::CUevent end_;
};

struct Buffers {
  cuda::Owned<cuda::CUdeviceptr> a, b;
  cuda::Owned<void*> host;
  std::size_t device_bytes = 0;
  std::size_t host_bytes = 0;
};

// Smaller buffers on small (Jetson) devices: at most an eighth of free memory.
Result<Buffers> allocate_buffers(const cuda::Context& ctx) {
  std::size_t free_bytes = 0, total = 0;
  if (auto st = ctx.check(ctx.api().mem_get_info(&free_bytes, &total), "cuMemGetInfo"); !st)
    return st.error();
  Buffers b;
  b.device_bytes = std::min(kDeviceBufferBytes, (free_bytes / 8) & ~std::size_t{0xFFFF});
  b.host_bytes = std::min(kHostBufferBytes, b.device_bytes);
  if (b.device_bytes < (std::size_t{16} << 20))
    return make_error(fmt::format("only {} bytes of device memory free", free_bytes), "",
                      "stop other GPU processes and run again");
  auto a = ctx.alloc(b.device_bytes);
  if (!a) return a.error();
  auto c = ctx.alloc(b.device_bytes);
  if (!c) return c.error();
  auto h = ctx.alloc_pinned(b.host_bytes);
  if (!h) return h.error();
  b.a = std::move(*a);
  b.b = std::move(*c);
  b.host = std::move(*h);
  return b;
}

struct Figures {
  double d2d_ce = 0, d2d_sm = 0, h2d = 0, d2h = 0, read = 0;
  nlohmann::json samples = nlohmann::json::object();
};

Result<Figures> measure_all(cuda::Context& ctx, const Buffers& buf, cuda::CUstream stream,
                            const CopyTimer& timer, cuda::CUfunction copy_kernel, unsigned grid) {
  const auto& api = ctx.api();
  Figures f;
  auto run = [&](const char* name, const std::function<Status()>& copy, double bytes,
                 const Sampling& s, double* out) -> Status {
    std::vector<double> samples;
    auto gbps = timer.measure(copy, bytes, s, &samples);
    if (!gbps) return gbps.error();
    *out = *gbps;
    f.samples[name] = samples;
    return Ok{};
  };
  const auto dev = static_cast<double>(buf.device_bytes);
  const auto host = static_cast<double>(buf.host_bytes);
  const std::uint64_t words = buf.device_bytes / 16;
  Status st = run(
      "d2d_ce",
      [&] {
        return ctx.check(api.memcpy_dtod_async(buf.b.get(), buf.a.get(), buf.device_bytes, stream),
                         "cuMemcpyDtoDAsync");
      },
      2 * dev, kDeviceSampling, &f.d2d_ce);
  if (!st) return st.error();
  st = run(
      "d2d_sm",
      [&] {
        return ctx.launch(copy_kernel, grid, kCopyBlock, stream, buf.a.get(), buf.b.get(), words);
      },
      2 * dev, kDeviceSampling, &f.d2d_sm);
  if (!st) return st.error();
  st = run(
      "h2d",
      [&] {
        return ctx.check(api.memcpy_htod_async(buf.a.get(), buf.host.get(), buf.host_bytes, stream),
                         "cuMemcpyHtoDAsync");
      },
      host, kHostSampling, &f.h2d);
  if (!st) return st.error();
  st = run(
      "d2h",
      [&] {
        return ctx.check(api.memcpy_dtoh_async(buf.host.get(), buf.a.get(), buf.host_bytes, stream),
                         "cuMemcpyDtoHAsync");
      },
      host, kHostSampling, &f.d2h);
  if (!st) return st.error();
  auto read = cuda::measure_read_bandwidth(
      ctx, stream, buf.a.get(), buf.device_bytes,
      {kDeviceSampling.warmups, kDeviceSampling.samples, kDeviceSampling.copies_per_sample});
  if (!read) return read.error();
  f.read = read->gbps;
  f.samples["read"] = read->samples_gbps;
  return f;
}

void judge(const Figures& f, double peak_gbps, ProbeResult& r) {
  const double d2d = std::max(f.d2d_ce, f.d2d_sm);
  r.values["d2d_gbps"] = {d2d, "GB/s"};
  r.values["d2d_copy_engine_gbps"] = {f.d2d_ce, "GB/s"};
  r.values["d2d_sm_copy_gbps"] = {f.d2d_sm, "GB/s"};
  r.values["h2d_gbps"] = {f.h2d, "GB/s"};
  r.values["d2h_gbps"] = {f.d2h, "GB/s"};
  r.values["read_gbps"] = {f.read, "GB/s"};
  r.details["d2d_counts"] = "bytes read + bytes written";
  r.details["samples_gbps"] = f.samples;
  std::string summary = fmt::format(
      "device-to-device {:.0f} GB/s (read + write), host-to-device {:.1f} GB/s, device-to-host "
      "{:.1f} GB/s, read-only {:.0f} GB/s",
      d2d, f.h2d, f.d2h, f.read);
  if (peak_gbps <= 0) {
    r.status = ProbeStatus::pass;
    r.reason = summary + "; the driver reports no memory clock, so no theoretical peak to compare";
    return;
  }
  const double fraction = d2d / peak_gbps;
  r.values["theoretical_gbps"] = {peak_gbps, "GB/s"};
  r.values["d2d_fraction_of_peak"] = {fraction, "fraction"};
  r.values["read_fraction_of_peak"] = {f.read / peak_gbps, "fraction"};
  summary += fmt::format("; {:.0f}% of the theoretical {:.0f} GB/s", fraction * 100, peak_gbps);
  if (fraction < kWarnFractionOfPeak) {
    r.status = ProbeStatus::warn;
    r.reason =
        summary +
        fmt::format(
            ", below {:.0f}%: check clocks and power mode (Jetson: nvpmodel -q, jetson_clocks) and "
            "other GPU load",
            kWarnFractionOfPeak * 100);
  } else {
    r.status = ProbeStatus::pass;
    r.reason = summary;
  }
}

}  // namespace

ProbeResult probe_bandwidth(const cuda::Driver& driver, const CudaOptions& /*options*/) {
  const std::string id = "bandwidth";
  auto ctx = cuda::Context::create(driver, kProbeDevice, cuda::kCtxSchedAuto);
  if (!ctx) return failed_probe(id, ctx.error());
  cuda::Context& c = **ctx;
  auto spin = c.kernel("jetgate_spin_ns");
  if (!spin) return failed_probe(id, spin.error());
  auto copy = c.kernel("jetgate_copy_u4");
  if (!copy) return failed_probe(id, copy.error());
  auto sms = c.attribute(cuda::kAttrMultiprocessorCount);
  auto clock = c.attribute(cuda::kAttrMemoryClockRateKhz);
  auto width = c.attribute(cuda::kAttrGlobalMemoryBusWidthBits);
  if (!sms) return failed_probe(id, sms.error());
  auto buf = allocate_buffers(c);
  if (!buf) return failed_probe(id, buf.error());
  auto stream = c.stream();
  auto start = c.event();
  auto end = c.event();
  if (!stream) return failed_probe(id, stream.error());
  if (!start) return failed_probe(id, start.error());
  if (!end) return failed_probe(id, end.error());
  CopyTimer timer(c, stream->get(), *spin, start->get(), end->get());
  // Enough resident blocks to fill every SM (2048 threads each).
  const unsigned grid = static_cast<unsigned>(*sms) * 8u;
  auto figures = measure_all(c, *buf, stream->get(), timer, *copy, grid);
  if (!figures) return failed_probe(id, figures.error());
  ProbeResult r;
  r.id = id;
  r.values["device_buffer_bytes"] = {static_cast<double>(buf->device_bytes), "bytes"};
  r.values["host_buffer_bytes"] = {static_cast<double>(buf->host_bytes), "bytes"};
  judge(*figures, cuda::theoretical_bandwidth_gbps(clock ? *clock : 0, width ? *width : 0), r);
  return r;
}

}  // namespace jetgate::probes
