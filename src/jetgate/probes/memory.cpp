// SPDX-License-Identifier: Apache-2.0
// memory: allocate a share of the free device memory in chunks, write a
// position-dependent pattern with a kernel and count mismatches with another
// on the device, so that tens of gigabytes are checked without copying them
// back. Two self-checks keep the verdict honest: words read back to the host
// must match the pattern (the writer ran), and one planted wrong word must be
// counted exactly once (the checker works).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/memory_pattern.hpp"
#include "jetgate/probes/cuda_probes.hpp"

namespace jetgate::probes {

namespace {

using cuda::CUfunction;

constexpr std::size_t kChunkBytes = std::size_t{1} << 30;
constexpr std::size_t kMinBytes = std::size_t{1} << 20;
constexpr unsigned kMemoryBlock = 256;
constexpr std::uint32_t kSeedBase = 0x6A657467;  // "jetg"

struct Chunk {
  cuda::Owned<cuda::CUdeviceptr> mem;
  std::uint64_t words = 0;
  std::uint32_t seed = 0;
};

class MemoryTest {
 public:
  MemoryTest(cuda::Context& ctx, CUfunction fill, CUfunction count, unsigned grid)
      : ctx_(ctx), fill_(fill), count_(count), grid_(grid) {}

  Status fill(const Chunk& c) const {
    return ctx_.launch(fill_, grid_, kMemoryBlock, nullptr, c.mem.get(), c.words, c.seed);
  }
  Result<std::uint64_t> mismatches(const Chunk& c, cuda::CUdeviceptr counter) const {
    if (auto st = ctx_.check(ctx_.api().memset_d32_async(counter, 0, 2, nullptr), "cuMemsetD32");
        !st)
      return st.error();
    if (auto st = ctx_.launch(count_, grid_, kMemoryBlock, nullptr, c.mem.get(), c.words, c.seed,
                              counter);
        !st)
      return st.error();
    std::uint64_t n = 0;
    if (auto st = ctx_.check(ctx_.api().memcpy_dtoh(&n, counter, sizeof n), "cuMemcpyDtoH"); !st)
      return st.error();
    return n;
  }
  // Reads words at the start, middle and end back to the host.
  Result<bool> spot_check(const Chunk& c) const {
    for (std::uint64_t i : {std::uint64_t{0}, c.words / 2, c.words - 1}) {
      std::uint32_t got = 0;
      if (auto st =
              ctx_.check(ctx_.api().memcpy_dtoh(&got, c.mem.get() + i * 4, 4), "cuMemcpyDtoH");
          !st)
        return st.error();
      if (got != cuda::memory_pattern(i, c.seed)) return false;
    }
    return true;
  }
  Status plant_error(const Chunk& c, std::uint64_t i) const {
    return ctx_.check(ctx_.api().memset_d32_async(c.mem.get() + i * 4,
                                                  ~cuda::memory_pattern(i, c.seed), 1, nullptr),
                      "cuMemsetD32");
  }

 private:
  cuda::Context& ctx_;
  CUfunction fill_;
  CUfunction count_;
  unsigned grid_;
};

// Allocates up to target bytes in chunks; stops early when memory runs out.
std::vector<Chunk> allocate_chunks(const cuda::Context& ctx, std::size_t target,
                                   Error* last_error) {
  std::vector<Chunk> chunks;
  for (std::size_t done = 0; done < target;) {
    const std::size_t bytes = std::min(kChunkBytes, target - done) & ~std::size_t{3};
    if (bytes == 0) break;
    auto mem = ctx.alloc(bytes);
    if (!mem) {
      *last_error = mem.error();
      break;
    }
    chunks.push_back(
        {std::move(*mem), bytes / 4, kSeedBase + static_cast<std::uint32_t>(chunks.size())});
    done += bytes;
  }
  return chunks;
}

}  // namespace

ProbeResult probe_memory(const cuda::Driver& driver, const CudaOptions& options) {
  const std::string id = "memory";
  auto ctx = cuda::Context::create(driver, kProbeDevice, cuda::kCtxSchedAuto);
  if (!ctx) return failed_probe(id, ctx.error());
  auto fill = (*ctx)->kernel("jetgate_fill_pattern");
  auto count = (*ctx)->kernel("jetgate_count_mismatches");
  auto sms = (*ctx)->attribute(cuda::kAttrMultiprocessorCount);
  if (!fill) return failed_probe(id, fill.error());
  if (!count) return failed_probe(id, count.error());
  if (!sms) return failed_probe(id, sms.error());
  std::size_t free_bytes = 0, total_bytes = 0;
  if (auto st = (*ctx)->check(driver.api().mem_get_info(&free_bytes, &total_bytes), "cuMemGetInfo");
      !st)
    return failed_probe(id, st.error());

  const double fraction = std::clamp(options.memory_fraction, 0.0, 0.95);
  const std::size_t target =
      std::min(static_cast<std::size_t>(static_cast<double>(free_bytes) * fraction),
               options.memory_max_bytes);
  ProbeResult r;
  r.id = id;
  r.values["free_bytes"] = {static_cast<double>(free_bytes), "bytes"};
  r.values["target_bytes"] = {static_cast<double>(target), "bytes"};
  if (target < kMinBytes) {
    r.status = ProbeStatus::skip;
    r.reason = fmt::format("only {} bytes to test ({} of {} free bytes): raise --memory-fraction",
                           target, fraction, free_bytes);
    return r;
  }
  auto counter = (*ctx)->alloc(8);
  if (!counter) return failed_probe(id, counter.error());
  Error alloc_error;
  std::vector<Chunk> chunks = allocate_chunks(**ctx, target, &alloc_error);
  if (chunks.empty()) return failed_probe(id, alloc_error);

  MemoryTest test(**ctx, *fill, *count, static_cast<unsigned>(*sms) * 8u);
  std::uint64_t tested = 0, wrong = 0;
  for (const auto& c : chunks) {
    if (auto st = test.fill(c); !st) return failed_probe(id, st.error());
    tested += c.words * 4;
  }
  for (const auto& c : chunks) {
    auto n = test.mismatches(c, counter->get());
    if (!n) return failed_probe(id, n.error());
    wrong += *n;
  }
  bool writer_ran = true;
  for (const auto& c : chunks) {
    auto ok = test.spot_check(c);
    if (!ok) return failed_probe(id, ok.error());
    writer_ran = writer_ran && *ok;
  }
  if (auto st = test.plant_error(chunks[0], chunks[0].words / 3); !st)
    return failed_probe(id, st.error());
  auto planted = test.mismatches(chunks[0], counter->get());
  if (!planted) return failed_probe(id, planted.error());

  r.values["tested_bytes"] = {static_cast<double>(tested), "bytes"};
  r.values["tested_fraction_of_free"] = {
      static_cast<double>(tested) / static_cast<double>(free_bytes), "fraction"};
  r.values["mismatched_words"] = {static_cast<double>(wrong), "count"};
  r.details["chunks"] = chunks.size();
  if (tested < target) r.details["allocation_stopped"] = alloc_error.message();
  if (!writer_ran || *planted != 1) {
    r.status = ProbeStatus::fail;
    r.reason = !writer_ran ? "words read back do not hold the pattern the fill kernel wrote: "
                             "kernels do not run or write correctly"
                           : fmt::format(
                                 "the mismatch counter found {} instead of 1 planted wrong "
                                 "word: kernels do not run correctly",
                                 *planted);
  } else if (wrong != 0) {
    r.status = ProbeStatus::fail;
    r.reason = fmt::format(
        "{} of {} words read back wrong: the GPU memory is faulty; check "
        "nvidia-smi -q -d ECC / dmesg",
        wrong, tested / 4);
  } else {
    r.status = ProbeStatus::pass;
    r.reason = fmt::format("wrote and verified {:.2f} GiB ({:.0f}% of free memory) in {} chunks",
                           static_cast<double>(tested) / (1u << 30),
                           100.0 * static_cast<double>(tested) / static_cast<double>(free_bytes),
                           chunks.size());
  }
  return r;
}

}  // namespace jetgate::probes
