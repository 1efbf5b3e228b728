// SPDX-License-Identifier: Apache-2.0
// `history ingest` of an evidence directory: the input is split at its first NUL byte
// into two evidence files of two nodes (ev/node-a/GATE.json and ev/node-b/GATE.json,
// the layout a fleet's collector writes), ingested into a fresh database, then read
// back and judged as `history regressions` does. Nothing may crash, and every file is
// either stored or reported as a bad file.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_input.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/history/store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const jetgate::fuzz::ScratchRoot scratch;
  namespace fs = std::filesystem;
  const std::string ev = scratch.dir() + "/ev";
  const std::string db = scratch.dir() + "/h.db";
  std::error_code ec;
  fs::remove_all(ev, ec);
  fs::remove(db, ec);
  fs::create_directories(ev + "/node-a", ec);
  fs::create_directories(ev + "/node-b", ec);
  const std::string_view in = jetgate::fuzz::text(data, size);
  const auto cut = in.find('\0');
  const std::string_view first = in.substr(0, cut);
  const std::string_view second = cut == std::string_view::npos ? "" : in.substr(cut + 1);
  scratch.write("ev/node-a/cuda-runtime.json", reinterpret_cast<const uint8_t*>(first.data()),
                first.size());
  if (!second.empty())
    scratch.write("ev/node-b/cuda-runtime.json", reinterpret_cast<const uint8_t*>(second.data()),
                  second.size());
  auto store = jetgate::history::Store::open(db, true);
  if (!store) std::abort();  // a fresh database in a scratch directory always opens
  jetgate::history::IngestOptions o;
  o.now = 1796000000;  // 2026-12-01: fixed, so a run is reproducible
  auto report = jetgate::history::ingest(*store, {ev}, o);
  if (!report) return 0;
  auto runs = jetgate::history::load_runs(*store);
  if (!runs) std::abort();  // what ingest stored reads back
  (void)jetgate::history::find_regressions(*runs);
  (void)jetgate::history::find_trends(*runs);
  return 0;
}
