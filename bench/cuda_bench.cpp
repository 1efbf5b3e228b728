// SPDX-License-Identifier: Apache-2.0
// Runs collect_cuda with every probe, as `jetgate probe --cuda` does, and
// prints the section as JSON plus the wall time it took (CUDA
// initialisation in every child included). Used by compare_h200.sh.
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/report/cuda_text.hpp"

int main(int argc, char** argv) {
  jetgate::probes::CudaOptions options;
  options.run_probes = true;
  for (int i = 1; i < argc; ++i) options.only.emplace_back(argv[i]);
  const auto t0 = std::chrono::steady_clock::now();
  jetgate::probes::CudaSection s = jetgate::probes::collect_cuda(options);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : s.probes) probes.push_back(jetgate::probes::to_json(p));
  std::cerr << jetgate::report::render_cuda_text(s);
  std::cout << nlohmann::json{{"gpu", s.gpu},
                              {"probes", probes},
                              {"notes", s.notes},
                              {"wall_s", wall_s}}
                   .dump(1)
            << "\n";
  return 0;
}
