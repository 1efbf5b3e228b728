// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/read_bandwidth.hpp"

#include <algorithm>

namespace jetgate::cuda {

namespace {

constexpr std::uint64_t kHoldNs = 2'000'000;  // far longer than queueing a sample takes
constexpr unsigned kReadBlock = 256;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

Result<ReadBandwidth> measure_read_bandwidth(Context& ctx, CUstream stream, CUdeviceptr buffer,
                                             std::size_t bytes, const ReadSampling& sampling) {
  auto spin = ctx.kernel("jetgate_spin_ns");
  if (!spin) return spin.error();
  auto read = ctx.kernel("jetgate_read_u4");
  if (!read) return read.error();
  auto sms = ctx.attribute(kAttrMultiprocessorCount);
  if (!sms) return sms.error();
  auto sink = ctx.alloc(16);
  if (!sink) return sink.error();
  auto start = ctx.event();
  if (!start) return start.error();
  auto end = ctx.event();
  if (!end) return end.error();
  const auto& api = ctx.api();
  // Enough resident blocks to fill every SM (2048 threads each).
  const unsigned grid = static_cast<unsigned>(*sms) * 8u;
  const std::uint64_t words = bytes / 16;
  ReadBandwidth out;
  for (int i = 0; i < sampling.warmups + sampling.samples; ++i) {
    if (auto st = ctx.launch(*spin, 1, 1, stream, kHoldNs); !st) return st.error();
    if (auto st = ctx.check(api.event_record(start->get(), stream), "cuEventRecord"); !st)
      return st.error();
    for (int r = 0; r < sampling.reads_per_sample; ++r)
      if (auto st = ctx.launch(*read, grid, kReadBlock, stream, buffer, words, sink->get()); !st)
        return st.error();
    if (auto st = ctx.check(api.event_record(end->get(), stream), "cuEventRecord"); !st)
      return st.error();
    if (auto st = ctx.check(api.event_synchronize(end->get()), "cuEventSynchronize"); !st)
      return st.error();
    float ms = 0;
    if (auto st =
            ctx.check(api.event_elapsed_time(&ms, start->get(), end->get()), "cuEventElapsedTime");
        !st)
      return st.error();
    if (!(ms > 0)) return make_error("a read sample took no measurable time");
    if (i >= sampling.warmups)
      out.samples_gbps.push_back(static_cast<double>(words * 16) * sampling.reads_per_sample /
                                 (static_cast<double>(ms) * 1e-3) / 1e9);
  }
  out.gbps = median_of(out.samples_gbps);
  return out;
}

}  // namespace jetgate::cuda
