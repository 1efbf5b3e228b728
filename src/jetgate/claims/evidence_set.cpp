// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/evidence_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "jetgate/claims/freshness.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence_read.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::claims {
namespace {

namespace stdfs = std::filesystem;

// The evidence files of one directory, sorted, and which of them have a
// GATE.dsse.json beside them (seen in the same listing: no stat per file).
struct DirListing {
  std::vector<std::string> files;
  std::vector<bool> enveloped;
};

Result<DirListing> json_files_in(const std::string& dir) {
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec))
    return make_error("not a directory", dir,
                      "pass the folder `jetgate run --evidence-dir` wrote to");
  std::vector<std::string> names, envelopes;
  stdfs::directory_iterator it(dir, ec), end;
  if (ec) return make_error("cannot list directory: " + ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("cannot list directory: " + ec.message(), dir);
    const auto& p = it->path();
    if (p.extension() != ".json") continue;
    std::string name = p.filename().string();
    if (trust::is_envelope_name(name))
      envelopes.push_back(std::move(name));
    else
      names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  std::sort(envelopes.begin(), envelopes.end());
  DirListing out;
  out.files.reserve(names.size());
  out.enveloped.reserve(names.size());
  for (const auto& name : names) {
    std::string stem = stdfs::path(name).stem().string();
    out.enveloped.push_back(
        std::binary_search(envelopes.begin(), envelopes.end(), trust::envelope_name(stem)));
    out.files.push_back((stdfs::path(dir) / name).string());
  }
  return out;
}

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

// One platform key object, and one lane string, for all the files that speak
// for the same platform and lane (one interner per loading thread).
class Interner {
 public:
  std::shared_ptr<const PlatformKey> key(PlatformKey key) {
    auto& same = keys_[{key.platform, key.runtime}];
    for (const auto& k : same)
      if (k->identified == key.identified && k->missing == key.missing && k->facts == key.facts)
        return k;
    return same.emplace_back(std::make_shared<const PlatformKey>(std::move(key)));
  }
  std::shared_ptr<const std::string> lane(std::string lane) {
    // Files come directory by directory: mostly the lane of the file before.
    if (last_lane_ && *last_lane_ == lane) return last_lane_;
    auto& kept = lanes_[lane];
    if (!kept) kept = std::make_shared<const std::string>(std::move(lane));
    return last_lane_ = kept;
  }

 private:
  std::map<std::pair<std::string, std::string>, std::vector<std::shared_ptr<const PlatformKey>>>
      keys_;
  std::map<std::string, std::shared_ptr<const std::string>> lanes_;
  std::shared_ptr<const std::string> last_lane_;
};

void record(LoadedEvidence& le, const JudgeRules& rules, Interner& interner) {
  le.unsigned_verdict = judge_unsigned(le.evidence, rules);
  le.platform = interner.key(platform_key(le.evidence));
  le.lane = interner.lane(lane_of(le.file, le.evidence.extra));
  if (auto t = parse_timestamp(le.evidence.generated_at)) le.when = *t;
  le.evidence.extra = nlohmann::json();
}

// Reads, parses and judges one file into `le`; or says why it is skipped.
std::optional<SkippedFile> load_one(const std::string& dir, std::string file, bool enveloped,
                                    const JudgeContext& ctx, OpenDir& open, Interner& interner,
                                    LoadedEvidence& le) {
  std::string stem = stdfs::path(file).stem().string();
  if (!evidence::is_valid_gate_id(stem)) {
    // Not even read: its name is no gate's, and is shown only quoted.
    std::string why = fmt::format(
        "{}: {} is not GATE.json for a gate id (lowercase letters, digits and "
        "'-'), so this file speaks for no gate",
        quoted_text(dir, 1024), quoted_text(stdfs::path(file).filename().string()));
    return SkippedFile{std::move(file), std::move(why), std::string()};
  }
  // One read and one parse per file, of only what a verdict reads.
  auto text = read_text(file, open);
  if (!text) return SkippedFile{std::move(file), text.error().message(), std::move(stem)};
  auto e = evidence::evidence_from_document(parse_json_fast(*text, file, judged_keys()), file);
  if (!e) return SkippedFile{std::move(file), e.error().message(), std::move(stem)};
  // Only DIR/GATE.json is the gate's evidence (what `jetgate run` and OBLITERATUS write);
  // a copy under another name could be any old run and must not speak for the gate.
  if (stem != e->gate) {
    std::string why = fmt::format(
        "{}: records gate {}, but a gate's evidence is the file named after it "
        "(DIR/GATE.json), so this file speaks for no gate",
        quoted_text(file, 1024), quoted_text(e->gate));
    return SkippedFile{std::move(file), std::move(why), std::move(stem)};
  }
  le.file = std::move(file);
  le.evidence = std::move(*e);
  le.signature.envelope_present = enveloped;
  // Without keys there is nothing to check: what the envelope's presence says is all.
  le.signature_checked = ctx.trusted.empty();
  if (!ctx.trusted.empty()) le.tag = trust::content_tag(ctx.tag_key, *text);
  record(le, ctx.rules, interner);
  return std::nullopt;
}

unsigned threads_for(std::size_t files, unsigned asked) {
  unsigned n = asked != 0 ? asked : std::max(1u, std::thread::hardware_concurrency());
  // A thread is worth starting for a few dozen files, not for one.
  std::size_t useful = std::max<std::size_t>(1, files / 32);
  return static_cast<unsigned>(std::min<std::size_t>({n, useful, 64}));
}

trust::SignatureCheck rejected(const LoadedEvidence& le, std::string why) {
  trust::SignatureCheck c;
  c.outcome = trust::Signature::rejected;
  c.envelope_present = le.signature.envelope_present;
  c.why = std::move(why);
  return c;
}

}  // namespace

const JsonKeep& judged_keys() {
  // Each member read by judge_unsigned (evidence_verdict.cpp, with the
  // requirements of policy/requirements.cpp), platform_key (platform_key.cpp)
  // and lane_of (gate_decision.cpp), and the OBLITERATUS fields.
  // Loader.KeptMembersJudgeLikeTheWholeDocument changes every documented key
  // of real documents and fails when a verdict, key or lane reads one not here.
  static const JsonKeep kJudged{{
      {"schema_version"},
      {"gate"},
      {"status"},
      {"generated_at"},
      {"git_sha"},
      {"reason"},
      {"exit_code"},
      {"counts"},
      {"jetgate", "version"},
      {"facts_source"},
      {"root"},
      {"dirty"},
      {"git", "problem"},
      {"gate_definition", "sha256"},
      {"gate_definition", "policy"},
      {"command", "exit_code"},
      {"probes", "*", "status"},
      {"lane", "node"},
      {"lane", "kind"},
      {"platform", "arch"},
      {"platform", "tegra", "is_tegra"},
      {"platform", "tegra", "l4t"},
      {"platform", "tegra", "jetpack"},
      {"platform", "tegra", "jetpack_versions"},
      {"platform", "tegra", "jetpack_candidates"},
      {"platform", "tegra", "model"},
      {"platform", "tegra", "module"},
      {"platform", "tegra", "part_number"},
      {"platform", "tegra", "soc"},
      {"platform", "power", "nvpmodel", "mode_name"},
      {"platform", "power", "nvpmodel", "mode_id"},
      {"platform", "container", "detected"},
      {"platform", "cuda", "toolkit_version"},
      {"platform", "nvidia_driver", "version"},
      {"gpu", "driver", "loaded"},
      {"gpu", "driver", "version"},
      {"gpu", "driver", "error"},
      {"gpu", "device_count"},
      {"gpu", "devices", "*", "name"},
      {"gpu", "devices", "*", "total_memory_bytes"},
      {"python", "torch", "version"},
      {"python", "torch", "cuda_version"},
  }};
  return kJudged;
}

void record_verdict(LoadedEvidence& le, const JudgeRules& rules) {
  Interner interner;
  record(le, rules, interner);
}

EvidenceSet judge_set(std::vector<LoadedEvidence> files, const JudgeRules& rules) {
  EvidenceSet set;
  auto ctx = std::make_shared<JudgeContext>();
  ctx->rules = rules;
  Interner interner;
  for (auto& le : files) {
    le.signature_checked = true;
    ctx->documents[le.file] = le.evidence.extra;
    record(le, rules, interner);
  }
  set.context = std::move(ctx);
  set.loaded = std::move(files);
  return set;
}

Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs,
                                       const JudgeRules& rules,
                                       const std::vector<trust::TrustedKey>& trusted,
                                       const std::optional<std::string>& repository,
                                       unsigned threads) {
  auto ctx = std::make_shared<JudgeContext>();
  ctx->rules = rules;
  ctx->trusted = trusted;
  ctx->repository = repository;
  ctx->tag_key = trust::new_content_tag_key();
  struct Task {
    const std::string* dir;
    std::string file;
    bool enveloped;
  };
  std::vector<Task> tasks;
  for (const auto& dir : dirs) {
    auto listing = json_files_in(dir);
    if (!listing) return listing.error();
    for (std::size_t i = 0; i < listing->files.size(); ++i)
      tasks.push_back({&dir, std::move(listing->files[i]), listing->enveloped[i]});
  }
  // Each file is judged into its place; the skipped ones are taken out after.
  EvidenceSet set;
  set.loaded.resize(tasks.size());
  std::vector<std::pair<std::size_t, SkippedFile>> skipped;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex mutex;
  // Each worker interns the platform keys and lanes it makes; the set keeps them alive.
  auto work = [&] {
    std::vector<std::pair<std::size_t, SkippedFile>> mine;
    try {
      OpenDir open;
      Interner interner;
      for (std::size_t i = next++; i < tasks.size(); i = next++)
        if (auto s = load_one(*tasks[i].dir, std::move(tasks[i].file), tasks[i].enveloped, *ctx,
                              open, interner, set.loaded[i]))
          mine.emplace_back(i, std::move(*s));
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
      next = tasks.size();
    }
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& s : mine) skipped.push_back(std::move(s));
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
  tasks = {};
  set.context = std::move(ctx);
  // Out go the places of skipped files, the loaded ones keeping their order.
  std::sort(skipped.begin(), skipped.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::size_t kept = 0, s = 0;
  for (std::size_t i = 0; i < set.loaded.size(); ++i) {
    if (s < skipped.size() && skipped[s].first == i) {
      ++s;
      continue;
    }
    if (kept != i) set.loaded[kept] = std::move(set.loaded[i]);
    ++kept;
  }
  set.loaded.resize(kept);
  set.loaded.shrink_to_fit();
  set.skipped.reserve(skipped.size());
  for (auto& [i, file] : skipped) set.skipped.push_back(std::move(file));
  auto by_file = [](const auto& a, const auto& b) { return a.file < b.file; };
  if (!std::is_sorted(set.loaded.begin(), set.loaded.end(), by_file))
    std::stable_sort(set.loaded.begin(), set.loaded.end(), by_file);
  if (!std::is_sorted(set.skipped.begin(), set.skipped.end(), by_file))
    std::stable_sort(set.skipped.begin(), set.skipped.end(), by_file);
  return set;
}

namespace {

Error changed(const LoadedEvidence& le) {
  return make_error("the file changed after jetgate read it", le.file,
                    "run jetgate again once nothing writes to the evidence directory");
}

// The file's bytes again, when they are the ones judged (with trusted keys:
// the same bytes, by their tag; signatures are checked over these).
Result<std::string> read_again(const LoadedEvidence& le, const JudgeContext& ctx) {
  auto text = evidence::read_evidence_text(le.file);
  if (!text) return text.error();
  if (!ctx.trusted.empty() && trust::content_tag(ctx.tag_key, *text) != le.tag) return changed(le);
  return text;
}

}  // namespace

Result<evidence::Evidence> EvidenceSet::reread(const LoadedEvidence& le) const {
  if (auto kept = context->documents.find(le.file); kept != context->documents.end()) {
    evidence::Evidence e = le.evidence;
    e.extra = kept->second;
    return e;
  }
  auto text = read_again(le, *context);
  if (!text) return text.error();
  auto e = evidence::evidence_from_text(*text, le.file);
  if (!e) return e.error();
  // Without keys the bytes were not tagged: the document must still be the
  // one judged in everything a verdict, platform key or lane reads.
  LoadedEvidence again;
  again.file = le.file;
  again.evidence = *e;
  record_verdict(again, rules());
  const auto& v = again.unsigned_verdict;
  if (dump_json(evidence::to_json(again.evidence)) != dump_json(evidence::to_json(le.evidence)) ||
      v.state != le.unsigned_verdict.state || v.problems != le.unsigned_verdict.problems ||
      !(*again.platform == *le.platform) || *again.lane != *le.lane)
    return changed(le);
  return e;
}

const trust::SignatureCheck& EvidenceSet::signature(const LoadedEvidence& le) const {
  if (le.signature_checked) return le.signature;
  const JudgeContext& ctx = *context;
  auto text = read_again(le, ctx);
  Result<nlohmann::json> doc =
      text ? parse_json_fast(*text, le.file) : Result<nlohmann::json>(text.error());
  if (!doc)
    le.signature = rejected(le, "cannot read the evidence again: " + doc.error().message());
  else
    le.signature = trust::check_evidence_document(le.file, *doc, le.evidence.git_sha, ctx.trusted,
                                                  ctx.repository);
  le.signature_checked = true;
  return le.signature;
}

GateVerdict EvidenceSet::verdict(const LoadedEvidence& le) const {
  if (!rules().signatures_required) return le.unsigned_verdict;
  return with_signature(le.unsigned_verdict, signature(le), rules());
}

bool EvidenceSet::backs(const LoadedEvidence& le) const {
  if (!backs_claim(le.unsigned_verdict)) return false;
  return !rules().signatures_required || signature_holds(signature(le), rules());
}

}  // namespace jetgate::claims
