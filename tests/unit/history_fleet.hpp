// SPDX-License-Identifier: Apache-2.0
// A fleet's nightly evidence for the history tests, made from a real evidence file:
// docs/examples/evidence-h200-cuda-runtime.json, what `jetgate run cuda-runtime` wrote
// on an NVIDIA H200 (bench/results/ has that run). Each copy gets another node
// (/lane/node), another night (generated_at) and values with seeded noise around a
// per-node level: bandwidth +-1% run to run and a standard deviation of 2% node to node (identical
// boards), the sync path's CPU fractions a little jittered. Nothing else is changed, so each file
// is read by the same reader as the original.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>

#include "jetgate/history/store.hpp"
#include "test_support.hpp"

namespace jetgate::test {

inline const nlohmann::json& example_evidence() {
  static const nlohmann::json doc = nlohmann::json::parse(
      read_file(source_dir() + "/docs/examples/evidence-h200-cuda-runtime.json"));
  return doc;
}

struct NightPlan {
  double bandwidth_factor = 1;  // d2d only (the copy engines and SMs)
  bool polling = false;         // blocking_sync falls back to polling
  bool failed = false;          // the gate's command failed
};

// The example, dumped once, with a placeholder string ("@NAME@") where each night's
// values go. Filling them in is a string pass: 6000 deep copies of the document, each
// edited and dumped, cost minutes in the sanitizer and qemu lanes.
inline const std::string& night_template() {
  static const std::string text = [] {
    nlohmann::json e = example_evidence();
    e["lane"] = {{"node", "@node@"}, {"kind", "native"}};
    e["generated_at"] = "@generated_at@";
    auto& values = e["probes"]["bandwidth"]["values"];
    for (const char* k : {"d2d_gbps", "d2d_copy_engine_gbps", "d2d_sm_copy_gbps", "h2d_gbps",
                          "d2h_gbps", "d2d_fraction_of_peak"})
      values[k]["value"] = fmt::format("@{}@", k);
    auto& sync = e["probes"]["sync_path"];
    for (const char* k :
         {"sync_blocking_sync_cpu_fraction", "sync_spin_cpu_fraction", "sync_yield_cpu_fraction"})
      sync["values"][k]["value"] = fmt::format("@{}@", k);
    for (auto& m : sync["details"]["modes"])
      if (m["mode"] == "blocking_sync") {
        m["wait_cpu_fraction"] = "@sync_blocking_sync_cpu_fraction@";
        m["wait"] = "@wait@";
      }
    sync["status"] = "@sync_status@";
    sync["reason"] = "@sync_reason@";
    e["status"] = "@status@";
    e["counts"]["failures"] = "@failures@";
    e["reason"] = "@reason@";
    return e.dump(2) + "\n";
  }();
  return text;
}

// The template with each "@NAME@" (quotes included) replaced by the JSON of fill[NAME].
inline std::string fill_template(const std::string& text,
                                 const std::map<std::string, nlohmann::json>& fill) {
  std::string out;
  out.reserve(text.size() + 256);
  std::size_t at = 0;
  for (std::size_t open; (open = text.find("\"@", at)) != std::string::npos;) {
    const std::size_t close = text.find("@\"", open + 2);
    const auto it = fill.find(text.substr(open + 2, close - open - 2));
    if (close == std::string::npos || it == fill.end())
      throw std::logic_error("night_template: no value for " + text.substr(open, 40));
    out.append(text, at, open - at);
    out += it->second.dump();
    at = close + 2;
  }
  out.append(text, at);
  return out;
}

// One node's evidence for one night: day 0 is 2026-11-01.
inline std::string night_evidence(const std::string& node, int node_index, int day,
                                  const NightPlan& plan, std::mt19937_64& rng) {
  const nlohmann::json& example = example_evidence();
  std::map<std::string, nlohmann::json> fill;
  std::normal_distribution<double> run_noise(0, 0.01);
  // The node's own level: a fixed offset from the template, by its index.
  std::mt19937_64 node_rng(static_cast<std::uint64_t>(node_index) * 7919 + 17);
  std::normal_distribution<double> node_noise(0, 0.02);
  const double level = 1 + node_noise(node_rng);
  fill["node"] = node;
  fill["generated_at"] = fmt::format("2026-11-{:02d}T02:{:02d}:{:02d}Z", day + 1, node_index % 60,
                                     (node_index * 7 + day) % 60);
  const auto& values = example["probes"]["bandwidth"]["values"];
  for (const char* k :
       {"d2d_gbps", "d2d_copy_engine_gbps", "d2d_sm_copy_gbps", "h2d_gbps", "d2h_gbps"}) {
    double f = level * (1 + run_noise(rng));
    if (std::string(k).rfind("d2d", 0) == 0) f *= plan.bandwidth_factor;
    fill[k] = values[k]["value"].get<double>() * f;
  }
  fill["d2d_copy_engine_gbps"] = fill["d2d_gbps"];
  fill["d2d_fraction_of_peak"] =
      fill["d2d_gbps"].get<double>() / values["theoretical_gbps"]["value"].get<double>();
  const auto& sync = example["probes"]["sync_path"];
  std::uniform_real_distribution<double> small(0.0015, 0.004), busy(0.995, 1.002);
  const double blocking = plan.polling ? busy(rng) : small(rng);
  fill["sync_blocking_sync_cpu_fraction"] = blocking;
  fill["sync_spin_cpu_fraction"] = busy(rng);
  fill["sync_yield_cpu_fraction"] = busy(rng);
  fill["wait"] = plan.polling ? "busy-polling" : "interrupt-driven";
  fill["sync_status"] = plan.polling ? nlohmann::json("WARN") : sync["status"];
  fill["sync_reason"] =
      plan.polling ? nlohmann::json("blocking sync burns CPU: polling fallback") : sync["reason"];
  fill["status"] = plan.failed ? nlohmann::json("failed") : example["status"];
  fill["failures"] = plan.failed ? nlohmann::json(1) : example["counts"]["failures"];
  fill["reason"] = plan.failed ? nlohmann::json("1 of 4 tests failed") : example["reason"];
  return fill_template(night_template(), fill);
}

// A month (30 nights) of a 200-node fleet with five planted findings: node-017's
// device-to-device bandwidth drops by 30% from night 19 (0-based), node-088's blocking
// sync polls from night 12, node-150's gate fails from night 25, node-120 stops
// reporting after night 19 (silent), and node-063's device-to-device bandwidth is 20%
// below its identical siblings from its first night. Written under
// DIR/fleet/2026-11-DD/NODE/cuda-runtime.json; returns DIR/fleet.
constexpr int kNodes = 200, kDays = 30;
constexpr int kDropNode = 17, kDropDay = 19;
constexpr int kPollNode = 88, kPollDay = 12;
constexpr int kFailNode = 150, kFailDay = 25;
constexpr int kSilentNode = 120, kSilentDay = 20;  // its first night without evidence
constexpr int kSlowNode = 63;
constexpr double kSlowFactor = 0.8;
constexpr int kFiles = kNodes * kDays - (kDays - kSilentDay);

inline NightPlan planned_night(int n, int d) {
  NightPlan plan;
  if (n == kDropNode && d >= kDropDay) plan.bandwidth_factor = 0.7;
  if (n == kSlowNode) plan.bandwidth_factor = kSlowFactor;
  if (n == kPollNode && d >= kPollDay) plan.polling = true;
  if (n == kFailNode && d >= kFailDay) plan.failed = true;
  return plan;
}

inline std::string write_fleet_month(const TempDir& t) {
  std::mt19937_64 rng(424242);
  for (int d = 0; d < kDays; ++d)
    for (int n = 0; n < kNodes; ++n) {
      if (n == kSilentNode && d >= kSilentDay) continue;
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("fleet/2026-11-{:02d}/{}/cuda-runtime.json", d + 1, node),
              night_evidence(node, n, d, planned_night(n, d), rng));
    }
  return t.path("fleet");
}

// The month ingested into a history database, for the tests that read it (the
// regressions, the HTML report, headless Chromium). ctest starts each test in a process
// of its own, and generating and ingesting 6000 files takes minutes in the sanitizer and
// qemu lanes, so the first test to get here builds it and the others open it. It is
// kept beside the test binary, named after the binary's size and modification time: a
// rebuilt binary (a changed ingest, a planted bug) never reads what an older one built.
// A lock file serialises tests that start at once; the database is built in a folder of
// its own and renamed into place (with its WAL), so no test sees half of it.
struct FleetMonth {
  std::string db;  // the database: open it read-only in spirit, others share it
  std::size_t files = 0, added = 0, bad = 0;  // what its ingest reported
  double build_seconds = 0;                   // 0 when this process found it built
};

inline FleetMonth build_fleet_month(const std::string& dir) {
  const auto start = std::chrono::steady_clock::now();
  TempDir t;
  const std::string evidence = write_fleet_month(t);
  FleetMonth m;
  m.db = dir + "/fleet.db";
  auto store = history::Store::open(m.db, true);
  if (!store) throw std::runtime_error("fleet month: " + store.error().message());
  history::IngestOptions o;
  o.batch = 1000;
  auto in = history::ingest(*store, {evidence}, o);
  if (!in) throw std::runtime_error("fleet month: " + in.error().message());
  m.files = in->files;
  m.added = in->added;
  m.bad = in->bad.size();
  m.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

inline const FleetMonth& shared_fleet_month() {
  static const FleetMonth month = [] {
    namespace stdfs = std::filesystem;
    std::error_code ec;
    const stdfs::path exe = stdfs::read_symlink("/proc/self/exe", ec);
    struct stat st {};
    const stdfs::path cache = exe.parent_path() / "fleet-month-cache";
    if (ec || ::stat(exe.c_str(), &st) != 0 || (stdfs::create_directories(cache, ec), ec)) {
      static TempDir own;  // no folder to share: this process builds its own
      return build_fleet_month(own.path(""));
    }
    const std::string key =
        fmt::format("{}-{}.{:09d}-{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec, kFiles);
    const stdfs::path ready = cache / key;
    const int lock = ::open((cache / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || ::flock(lock, LOCK_EX) != 0)
      throw std::runtime_error("fleet month: cannot lock " + (cache / "lock").string());
    FleetMonth m;
    if (stdfs::exists(ready / "fleet.db")) {
      const auto counts = nlohmann::json::parse(read_file((ready / "ingest.json").string()));
      m.db = (ready / "fleet.db").string();
      m.files = counts.at("files");
      m.added = counts.at("added");
      m.bad = counts.at("bad");
    } else {
      for (const auto& old : stdfs::directory_iterator(cache))  // older binaries' months
        if (old.is_directory()) stdfs::remove_all(old.path(), ec);
      const stdfs::path building = cache / (key + ".building");
      stdfs::create_directories(building);
      m = build_fleet_month(building.string());
      std::ofstream((building / "ingest.json").string())
          << nlohmann::json{{"files", m.files}, {"added", m.added}, {"bad", m.bad}}.dump();
      stdfs::rename(building, ready);
      m.db = (ready / "fleet.db").string();
    }
    ::close(lock);
    return m;
  }();
  return month;
}

}  // namespace jetgate::test
