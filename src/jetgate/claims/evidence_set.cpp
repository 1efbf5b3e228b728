// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/evidence_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence_read.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::claims {
namespace {

namespace stdfs = std::filesystem;

Result<std::vector<std::string>> json_files_in(const std::string& dir) {
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec))
    return make_error("not a directory", dir,
                      "pass the folder `jetgate run --evidence-dir` wrote to");
  std::vector<std::string> files;
  stdfs::directory_iterator it(dir, ec), end;
  if (ec) return make_error("cannot list directory: " + ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("cannot list directory: " + ec.message(), dir);
    const auto& p = it->path();
    if (p.extension() == ".json" && !trust::is_envelope_name(p.filename().string()))
      files.push_back((stdfs::path(dir) / p.filename()).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// What one file came to: loaded or skipped, never both.
struct FileOutcome {
  std::optional<LoadedEvidence> loaded;
  std::optional<SkippedFile> skipped;
};

// One worker's open directory: consecutive files mostly share one.
struct OpenDir {
  std::string path;
  std::optional<fs::RootFs> root;
};

// read_evidence_text(file), with the directory opened once per run of files in it.
Result<std::string> read_text(const std::string& file, OpenDir& open) {
  stdfs::path p(file);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  if (!open.root || open.path != dir) {
    open.root.reset();
    auto root = fs::RootFs::open(dir);
    // The error exactly as read_evidence_text words it.
    if (!root) return evidence::read_evidence_text(file);
    open.path = dir;
    open.root = std::move(*root);
  }
  return evidence::read_evidence_text(*open.root, p.filename().string(), file);
}

FileOutcome load_one(const std::string& dir, const std::string& file,
                     const std::vector<trust::TrustedKey>& trusted,
                     const std::optional<std::string>& repository, OpenDir& open) {
  FileOutcome out;
  std::string stem = stdfs::path(file).stem().string();
  if (!evidence::is_valid_gate_id(stem)) {
    // Not even read: its name is no gate's, and is shown only quoted.
    out.skipped = SkippedFile{
        file,
        fmt::format("{}: {} is not GATE.json for a gate id (lowercase letters, digits and "
                    "'-'), so this file speaks for no gate",
                    quoted_text(dir, 1024), quoted_text(stdfs::path(file).filename().string())),
        std::string()};
    return out;
  }
  const std::string& named_gate = stem;
  // One read and one parse per file: the signature is checked over the same
  // document the evidence is made of, before it moves into Evidence::extra.
  auto text = read_text(file, open);
  if (!text) {
    out.skipped = SkippedFile{file, text.error().message(), named_gate};
    return out;
  }
  // Without keys nothing needs the whole document: what no verdict reads is never built.
  auto parsed =
      trusted.empty() ? parse_json_fast(*text, file, never_judged()) : parse_json_fast(*text, file);
  trust::SignatureCheck signature;
  if (!trusted.empty() && parsed && parsed->is_object()) {
    // The commit the evidence names; when it names none, the file is skipped below.
    const nlohmann::json& doc = *parsed;
    auto sha = doc.find("git_sha");
    signature = trust::check_evidence_document(
        file, doc, sha != doc.end() && sha->is_string() ? sha->get<std::string>() : std::string(),
        trusted, repository);
    prune_json(*parsed, never_judged());
  } else if (trusted.empty()) {
    signature =
        trust::check_evidence_document(file, nlohmann::json(), std::string(), trusted, repository);
  }
  auto e = evidence::evidence_from_document(std::move(parsed), file);
  if (!e) {
    out.skipped = SkippedFile{file, e.error().message(), named_gate};
    return out;
  }
  // Only DIR/GATE.json is the gate's evidence (what `jetgate run` and OBLITERATUS write);
  // a copy under another name could be any old run and must not speak for the gate.
  if (stem != e->gate) {
    out.skipped = SkippedFile{
        file,
        fmt::format("{}: records gate {}, but a gate's evidence is the file named after it "
                    "(DIR/GATE.json), so this file speaks for no gate",
                    quoted_text(file, 1024), quoted_text(e->gate)),
        named_gate};
    return out;
  }
  out.loaded = LoadedEvidence{file, std::move(*e), std::move(signature)};
  return out;
}

unsigned threads_for(std::size_t files, unsigned asked) {
  unsigned n = asked != 0 ? asked : std::max(1u, std::thread::hardware_concurrency());
  // A thread is worth starting for a few dozen files, not for one.
  std::size_t useful = std::max<std::size_t>(1, files / 32);
  return static_cast<unsigned>(std::min<std::size_t>({n, useful, 64}));
}

}  // namespace

const JsonPrune& never_judged() {
  // Probe details and raw values (a verdict asks only whether a probe has a
  // status; the summary prints status and reason); the Tegra driver's module,
  // device node and CDI lists, the libraries found and the kernels jetgate
  // embeds (no requirement, platform key or summary line reads them): most of
  // a document's size.
  static const JsonPrune kNeverJudged{{{"probes", "*", "details"},
                                       {"probes", "*", "values"},
                                       {"platform", "tegra", "driver"},
                                       {"platform", "libraries"},
                                       {"gpu", "kernels"}}};
  return kNeverJudged;
}

Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs,
                                       const std::vector<trust::TrustedKey>& trusted,
                                       const std::optional<std::string>& repository,
                                       unsigned threads) {
  struct Task {
    const std::string* dir;
    std::string file;
  };
  std::vector<Task> tasks;
  for (const auto& dir : dirs) {
    auto files = json_files_in(dir);
    if (!files) return files.error();
    for (auto& file : *files) tasks.push_back({&dir, std::move(file)});
  }
  std::vector<FileOutcome> outcomes(tasks.size());
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto work = [&] {
    try {
      OpenDir open;
      for (std::size_t i = next++; i < tasks.size(); i = next++)
        outcomes[i] = load_one(*tasks[i].dir, tasks[i].file, trusted, repository, open);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = tasks.size();
    }
  };
  unsigned n = threads_for(tasks.size(), threads);
  if (n <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(n - 1);
    // A pod's pids limit can refuse a thread: the ones started (this one at least) do
    // the work.
    for (unsigned t = 1; t < n; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;
      }
    }
    work();
    for (auto& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);
  EvidenceSet set;
  set.loaded.reserve(outcomes.size());
  for (auto& o : outcomes) {
    if (o.loaded) set.loaded.push_back(std::move(*o.loaded));
    if (o.skipped) set.skipped.push_back(std::move(*o.skipped));
  }
  auto by_file = [](const auto& a, const auto& b) { return a.file < b.file; };
  std::stable_sort(set.loaded.begin(), set.loaded.end(), by_file);
  std::stable_sort(set.skipped.begin(), set.skipped.end(), by_file);
  return set;
}

}  // namespace jetgate::claims
