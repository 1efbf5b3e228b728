// SPDX-License-Identifier: Apache-2.0
// jetgate's decode kernels outside the probe, for measuring variants side by
// side in one process and context (bench/decode_h200.sh): the launch mode
// (persistent cooperative kernel or CUDA graph of one kernel per phase),
// blocks per SM and the L2 prefetch of upcoming weights. Prints one JSON line
// per variant. `--profile N` decodes N tokens of the first variant only (for
// ncu).
//
// Usage: jetgate_decode_bench MODEL DTYPE [--tokens N] [--profile N]
//        [--variant LAUNCH:BLOCKS_PER_SM:PREFETCH_MIB[:BENCH_FLAGS]]...
// BENCH_FLAGS (decode_model.hpp, a sum; 16: phases wait at the barrier
// before their first weight loads, the order before 2026-12-01): 1 the persistent kernel runs its
// barriers only (what they cost); 2 phase_us, where the last token's time went
// (block 0's clock after each grid barrier, summed over the layers by phase);
// 4 the per-block L2 prefetch of the next rows at each barrier; 8 that
// prefetch looks two weight phases ahead.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/decode_runner.hpp"
#include "jetgate/cuda/read_bandwidth.hpp"
#include "jetgate/probes/stats.hpp"

namespace {

namespace dm = jetgate::cuda::decode;

struct Variant {
  dm::LaunchMode launch;
  unsigned blocks_per_sm;
  unsigned prefetch_mib;
  unsigned bench_flags;
};

// LAUNCH[:BLOCKS_PER_SM[:PREFETCH_MIB[:BENCH_FLAGS]]]
Variant parse_variant(const std::string& s) {
  Variant v{dm::LaunchMode::persistent, 1, 0, 0};
  std::vector<std::string> f;
  std::size_t at = 0;
  while (true) {
    const auto c = s.find(':', at);
    f.push_back(s.substr(at, c == std::string::npos ? std::string::npos : c - at));
    if (c == std::string::npos) break;
    at = c + 1;
  }
  v.launch = f[0] == "graph" ? dm::LaunchMode::graph : dm::LaunchMode::persistent;
  if (f.size() > 1) v.blocks_per_sm = static_cast<unsigned>(std::stoul(f[1]));
  if (f.size() > 2) v.prefetch_mib = static_cast<unsigned>(std::stoul(f[2]));
  if (f.size() > 3) v.bench_flags = static_cast<unsigned>(std::stoul(f[3]));
  return v;
}

int fail(const jetgate::Error& e) {
  std::cerr << "jetgate_decode_bench: " << e.message() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: jetgate_decode_bench MODEL DTYPE [--tokens N] [--profile N] "
                 "[--variant LAUNCH:BLOCKS_PER_SM:PREFETCH_MIB]...\n";
    return 2;
  }
  const dm::ModelShape* model = dm::find_preset(argv[1]);
  auto dtype = dm::parse_dtype(argv[2]);
  if (model == nullptr || !dtype) {
    std::cerr << "unknown model or dtype; models: " << dm::preset_names() << "\n";
    return 2;
  }
  unsigned tokens = 256, profile = 0;
  std::vector<Variant> variants;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--tokens") == 0)
      tokens = static_cast<unsigned>(std::stoul(argv[i + 1]));
    if (std::strcmp(argv[i], "--profile") == 0)
      profile = static_cast<unsigned>(std::stoul(argv[i + 1]));
    if (std::strcmp(argv[i], "--variant") == 0) variants.push_back(parse_variant(argv[i + 1]));
  }
  if (variants.empty()) variants.push_back({dm::LaunchMode::persistent, 1, 0, 0});
  auto driver = jetgate::cuda::Driver::load(jetgate::cuda::builtin_driver_paths());
  if (!driver) return fail(driver.error());
  if (auto st = jetgate::cuda::init_driver(*driver); !st) return fail(st.error());
  auto ctx = jetgate::cuda::Context::create(*driver, 0, jetgate::cuda::kCtxSchedSpin);
  if (!ctx) return fail(ctx.error());
  const double bytes = static_cast<double>(dm::weight_bytes_per_token(*model));
  double read_gbps = 0;
  for (const Variant& v : variants) {
    dm::RunnerOptions o;
    o.dtype = *dtype;
    o.max_ctx = 16 + tokens + 64 + 1;
    o.launch = v.launch;
    o.blocks_per_sm = v.blocks_per_sm;
    o.prefetch_window = v.prefetch_mib << 20;
    o.bench_flags = v.bench_flags;
    auto runner = dm::Runner::create(**ctx, *model, o);
    if (!runner) return fail(runner.error());
    dm::Runner& r = **runner;
    if (read_gbps == 0) {
      auto bw = jetgate::cuda::measure_read_bandwidth(**ctx, r.stream(), r.weights(),
                                                      r.weight_buffer_bytes() & ~std::uint64_t{15});
      if (!bw) return fail(bw.error());
      read_gbps = bw->gbps;
    }
    if (auto st = r.begin(1); !st) return fail(st.error());
    if (profile > 0) {
      for (unsigned i = 0; i < profile; ++i)
        if (auto t = r.step(); !t) return fail(t.error());
      return 0;
    }
    for (unsigned i = 0; i < 16; ++i)
      if (auto t = r.step(); !t) return fail(t.error());
    std::vector<double> lat;
    for (unsigned i = 0; i < tokens; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      auto t = r.step();
      if (!t) return fail(t.error());
      lat.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
    }
    const auto b0 = std::chrono::steady_clock::now();
    for (unsigned i = 0; i < 64; ++i)
      if (auto st = r.enqueue(); !st) return fail(st.error());
    if (auto st = r.synchronize(); !st) return fail(st.error());
    const double burst_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
    const double tok_s = 1e6 / jetgate::probes::median(lat);
    nlohmann::json line = {{"model", model->name},
                           {"dtype", dm::dtype_name(*dtype)},
                           {"launch", dm::to_string(r.launch_mode())},
                           {"grid", r.grid()},
                           {"blocks_per_sm", v.blocks_per_sm},
                           {"prefetch_mib", v.prefetch_mib},
                           {"bench_flags", v.bench_flags},
                           {"tok_s", tok_s},
                           {"p99_us", jetgate::probes::percentile(lat, 99)},
                           {"burst_tok_s", 64 / burst_s},
                           {"bytes_per_token", bytes},
                           {"read_gbps", read_gbps},
                           {"bound_tok_s", read_gbps * 1e9 / bytes},
                           {"fraction_of_bound", tok_s * bytes / (read_gbps * 1e9)},
                           {"init_ms", r.init_ms()}};
    if ((v.bench_flags & dm::kBenchPhaseTimes) != 0 &&
        r.launch_mode() == dm::LaunchMode::persistent) {
      auto times = r.phase_times();
      if (!times) return fail(times.error());
      const std::vector<std::uint64_t>& t = *times;
      static const char* const names[] = {"qkv", "attention", "out", "gate_up", "down"};
      nlohmann::json phase_us = nlohmann::json::object();
      for (const char* n : names) phase_us[n] = 0.0;
      const std::size_t per_layer = 5 * model->layers;
      for (std::size_t k = 1; k <= per_layer; ++k)
        phase_us[names[(k - 1) % 5]] =
            phase_us[names[(k - 1) % 5]].get<double>() + static_cast<double>(t[k] - t[k - 1]) / 1e3;
      phase_us["lm_head"] = static_cast<double>(t[per_layer + 1] - t[per_layer]) / 1e3;
      phase_us["total"] = static_cast<double>(t[per_layer + 1] - t[0]) / 1e3;
      line["phase_us"] = phase_us;
    }
    std::cout << line.dump() << std::endl;
  }
  return 0;
}
