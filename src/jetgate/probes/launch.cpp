// SPDX-License-Identifier: Apache-2.0
// launch: the smallest proof that kernels run. A kernel writes i * 3 + 7 into
// a buffer; the host reads it back and checks every element.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "jetgate/cuda/context.hpp"
#include "jetgate/probes/cuda_probes.hpp"

namespace jetgate::probes {

namespace {

constexpr std::uint64_t kElements = 1u << 20;
constexpr unsigned kBlock = 256;

// The first wrong element, and how many are wrong.
struct Mismatch {
  std::uint64_t count = 0;
  std::uint64_t first = 0;
};

Mismatch check_iota_affine(const std::vector<std::uint32_t>& got) {
  Mismatch m;
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    if (got[i] != static_cast<std::uint32_t>(i * 3u + 7u)) {
      if (m.count == 0) m.first = i;
      ++m.count;
    }
  }
  return m;
}

}  // namespace

ProbeResult probe_launch(const cuda::Driver& driver, const CudaOptions& /*options*/) {
  const std::string id = "launch";
  auto ctx = cuda::Context::create(driver, kProbeDevice, cuda::kCtxSchedAuto);
  if (!ctx) return failed_probe(id, ctx.error());
  auto fn = (*ctx)->kernel("jetgate_iota_affine");
  if (!fn) return failed_probe(id, fn.error());
  auto buf = (*ctx)->alloc(kElements * sizeof(std::uint32_t));
  if (!buf) return failed_probe(id, buf.error());

  const auto t0 = std::chrono::steady_clock::now();
  const unsigned grid = static_cast<unsigned>((kElements + kBlock - 1) / kBlock);
  if (auto st = (*ctx)->launch(*fn, grid, kBlock, nullptr, buf->get(), kElements); !st)
    return failed_probe(id, st.error());
  if (auto st = (*ctx)->check(driver.api().ctx_synchronize(), "cuCtxSynchronize"); !st)
    return failed_probe(id, st.error());
  const auto t1 = std::chrono::steady_clock::now();

  std::vector<std::uint32_t> host(kElements, 0);
  if (auto st = (*ctx)->check(
          driver.api().memcpy_dtoh(host.data(), buf->get(), kElements * sizeof(std::uint32_t)),
          "cuMemcpyDtoH");
      !st)
    return failed_probe(id, st.error());

  ProbeResult r;
  r.id = id;
  r.values["elements"] = {static_cast<double>(kElements), "count"};
  r.values["first_launch_us"] = {std::chrono::duration<double, std::micro>(t1 - t0).count(), "us"};
  const Mismatch m = check_iota_affine(host);
  r.values["wrong_elements"] = {static_cast<double>(m.count), "count"};
  if (m.count == 0) {
    r.status = ProbeStatus::pass;
    r.reason = fmt::format("a kernel wrote {} values and every one was right", kElements);
  } else {
    r.status = ProbeStatus::fail;
    r.reason = fmt::format(
        "the kernel's result is wrong: {} of {} values differ, the first at index {} ({} instead "
        "of {}); the GPU or its driver does not compute correctly: check dmesg for GPU errors",
        m.count, kElements, m.first, host[m.first], static_cast<std::uint32_t>(m.first * 3u + 7u));
  }
  return r;
}

}  // namespace jetgate::probes
