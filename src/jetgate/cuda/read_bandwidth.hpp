// SPDX-License-Identifier: Apache-2.0
// Read-only device bandwidth, measured as nvbandwidth measures copies: a spin
// kernel holds the stream while the start event, the reads and the end event
// are queued, so only the reads are timed; the figure is the median of
// several samples. Used by the bandwidth probe (read_gbps) and, on the model's
// own weights, by the decode probe as the bound of what decoding can reach.
#pragma once

#include <cstddef>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/cuda/context.hpp"

namespace jetgate::cuda {

struct ReadBandwidth {
  double gbps = 0;  // median, 1e9 bytes read per second
  std::vector<double> samples_gbps;
};

struct ReadSampling {
  int warmups = 1;
  int samples = 5;
  int reads_per_sample = 4;
};

// Reads [buffer, buffer + bytes) (bytes a multiple of 16) with
// jetgate_read_u4 on `stream`, which must be otherwise idle.
Result<ReadBandwidth> measure_read_bandwidth(Context& ctx, CUstream stream, CUdeviceptr buffer,
                                             std::size_t bytes, const ReadSampling& sampling = {});

}  // namespace jetgate::cuda
