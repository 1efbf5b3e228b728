// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/evidence_set.hpp"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iterator>
#include <map>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>

#include "jetgate/claims/freshness.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/identifier.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence_read.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::claims {
namespace {

namespace stdfs = std::filesystem;

// The evidence files of one directory (GATE.json; not GATE.dsse.json), sorted,
// and which of them have a GATE.dsse.json beside them (seen in the same
// listing: no stat per file).
struct DirListing {
  std::vector<std::string> names;
  std::vector<bool> enveloped;
};

constexpr std::string_view kJson = ".json";

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

Result<DirListing> json_files_in(const std::string& dir) {
  // opendir refuses what is missing or not a directory, as is_directory would.
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR)
      return make_error("not a directory", dir,
                        "pass the folder `jetgate run --evidence-dir` wrote to");
    return make_error(std::string("cannot list directory: ") + std::strerror(errno), dir);
  }
  std::vector<std::string> names, envelopes;
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(d);
    if (!entry) break;
    std::string_view name(entry->d_name);
    // "x.json"; ".json" alone is a hidden file without an extension.
    if (name.size() <= kJson.size() || !ends_with(name, kJson)) continue;
    if (trust::is_envelope_name(std::string(name)))
      envelopes.emplace_back(name);
    else
      names.emplace_back(name);
  }
  int listing_errno = errno;
  ::closedir(d);
  if (listing_errno != 0)
    return make_error(std::string("cannot list directory: ") + std::strerror(listing_errno), dir);
  std::sort(names.begin(), names.end());
  std::sort(envelopes.begin(), envelopes.end());
  DirListing out;
  out.enveloped.reserve(names.size());
  for (const auto& name : names) {
    std::string stem = name.substr(0, name.size() - kJson.size());
    out.enveloped.push_back(
        std::binary_search(envelopes.begin(), envelopes.end(), trust::envelope_name(stem)));
  }
  out.names = std::move(names);
  return out;
}

// DIR/NAME as the user named DIR (std::filesystem's `/`, which adds no second '/').
std::string file_in(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// What one loading thread keeps from file to file: the directory it has open
// (consecutive files mostly share one), one buffer for the bytes, and the
// files it skipped.
struct Reader {
  const std::string* dir = nullptr;
  std::optional<fs::RootFs> root;
  std::string text;
};

// read_evidence_text(file) into reader.text, with the directory opened once per run of files.
Status read_text(const std::string& dir, const std::string& name, const std::string& file,
                 Reader& reader) {
  if (!reader.root || reader.dir != &dir) {
    reader.root.reset();
    auto root = fs::RootFs::open(dir.empty() ? std::string(".") : dir);
    // The error exactly as read_evidence_text words it.
    if (!root) {
      auto text = evidence::read_evidence_text(file);
      if (!text) return text.error();
      reader.text = std::move(*text);  // the directory came back between the two
      return Ok{};
    }
    reader.dir = &dir;
    reader.root = std::move(*root);
  }
  return evidence::read_evidence_text(*reader.root, name, file, reader.text);
}

// Runs work(state, i) for every i below count on up to `threads` threads (this
// one among them), each thread with its own state from make_state(); then
// finish(state) for each, one at a time. A thread the system refuses (a pod's
// pids limit) leaves its share to the others; the first exception ends the
// run and is thrown again here.
template <typename MakeState, typename Work, typename Finish>
void for_each_index(std::size_t count, unsigned threads, MakeState make_state, Work work,
                    Finish finish) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex mutex;
  auto run = [&] {
    auto state = make_state();
    try {
      for (std::size_t i = next++; i < count; i = next++) work(state, i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!failure) failure = std::current_exception();
      next = count;
    }
    std::lock_guard<std::mutex> lock(mutex);
    finish(state);
  };
  std::vector<std::thread> pool;
  if (threads > 1) pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(run);
    } catch (const std::system_error&) {
      break;
    }
  }
  run();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// One platform key object, and one lane string, for all the files that speak
// for the same platform and lane (one interner per loading thread).
class Interner {
 public:
  // The key of e: platform_key(e), made again only when what it reads
  // (kPlatformKeyReads) differs from the file before's.
  std::shared_ptr<const PlatformKey> key_of(const evidence::Evidence& e) {
    constexpr std::size_t kReads = std::size(kPlatformKeyReads);
    bool same = last_key_ != nullptr;
    for (std::size_t i = 0; i < kReads; ++i) {
      auto it = e.extra.find(kPlatformKeyReads[i]);
      const nlohmann::json* now = it == e.extra.end() ? nullptr : &*it;
      if (!same) {
      } else if (now == nullptr ? last_read_[i].has_value()
                                : !last_read_[i] || !(*last_read_[i] == *now)) {
        same = false;
      }
    }
    if (same) return last_key_;
    for (std::size_t i = 0; i < kReads; ++i) {
      auto it = e.extra.find(kPlatformKeyReads[i]);
      last_read_[i] = it == e.extra.end() ? std::nullopt : std::optional<nlohmann::json>(*it);
    }
    return last_key_ = key(platform_key(e));
  }
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
  std::shared_ptr<const PlatformKey> last_key_;
  std::optional<nlohmann::json> last_read_[std::size(kPlatformKeyReads)];
};

void record(LoadedEvidence& le, const JudgeRules& rules, Interner& interner) {
  le.unsigned_verdict = judge_unsigned(le.evidence, rules);
  le.platform = interner.key_of(le.evidence);
  le.lane = interner.lane(lane_of(le.file, le.evidence.extra));
  if (auto t = parse_timestamp(le.evidence.generated_at)) le.when = *t;
  le.evidence.extra = nlohmann::json();
}

// Reads, parses and judges DIR/NAME (file) into `le`; or says why it is skipped.
std::optional<SkippedFile> load_one(const std::string& dir, const std::string& name,
                                    std::string file, bool enveloped, const JudgeContext& ctx,
                                    Reader& reader, Interner& interner, LoadedEvidence& le) {
  std::string stem = name.substr(0, name.size() - kJson.size());
  if (!evidence::is_valid_gate_id(stem)) {
    // Not even read: its name is no gate's, and is shown only quoted.
    std::string why = fmt::format(
        "{}: {} is not GATE.json for a gate id (lowercase letters, digits and "
        "'-'), so this file speaks for no gate",
        quoted_text(dir, 1024), quoted_text(name));
    return SkippedFile{std::move(file), std::move(why), std::string()};
  }
  // One read and one parse per file, of only what a verdict reads.
  if (auto read = read_text(dir, name, file, reader); !read)
    return SkippedFile{std::move(file), read.error().message(), std::move(stem)};
  auto e =
      evidence::evidence_from_document(parse_json_fast(reader.text, file, judged_keys()), file);
  if (!e) return SkippedFile{std::move(file), e.error().message(), std::move(stem)};
  // Only DIR/GATE.json is the gate's evidence (what `jetgate run` and OBLITERATUS write);
  // a copy under another name could be any old run and must not speak for the gate.
  if (!same_identifier(stem, e->gate)) {
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
  if (!ctx.trusted.empty()) le.tag = trust::content_tag(ctx.tag_key, reader.text);
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

// The member names along a document key ("/platform/tegra/l4t": platform,
// tegra, l4t), then `below` (document keys hold no '~' or '/' in a name).
std::vector<std::string> path(const keys::Pointer& key,
                              std::initializer_list<const char*> below = {}) {
  std::vector<std::string> out;
  const std::string text = key.to_string();
  for (std::size_t start = 1; start <= text.size();) {
    std::size_t end = std::min(text.find('/', start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  out.insert(out.end(), below.begin(), below.end());
  return out;
}

// Each element of the array at key, then the member inner names in it.
std::vector<std::string> each(const keys::Pointer& key, const keys::Pointer& inner) {
  std::vector<std::string> out = path(key, {"*"});
  for (auto& name : path(inner)) out.push_back(std::move(name));
  return out;
}

}  // namespace

const JsonKeep& judged_keys() {
  // Each member read by judge_unsigned (evidence_verdict.cpp, with the
  // requirements of policy/requirements.cpp), platform_key (platform_key.cpp)
  // and lane_of (platform_key.cpp), and the OBLITERATUS fields; spelled by
  // the document keys those readers use (core/document_keys.hpp).
  // EvidenceRecord.KeptMembersJudgeLikeTheWholeDocument changes every
  // documented key of real documents and fails when a verdict, key or lane
  // reads one not here.
  static const JsonKeep kJudged{{
      path(keys::kSchemaVersion),
      path(keys::kGate),
      path(keys::kStatus),
      path(keys::kGeneratedAt),
      path(keys::kGitSha),
      path(keys::kReason),
      path(keys::kExitCode),
      path(keys::kCounts),
      path(keys::kJetgateVersion),  // whether jetgate wrote it
      path(keys::kFactsSource),
      path(keys::kRoot),
      path(keys::kDirty),
      path(keys::kGitProblem),
      path(keys::kGateDefinitionSha256),
      path(keys::kGateDefinitionPolicy),
      path(keys::kCommand, {"exit_code"}),
      path(keys::kProbes, {"*", "status"}),
      path(keys::kLaneNode),
      path(keys::kLaneKind),
      path(keys::kArch),
      path(keys::kIsTegra),
      path(keys::kL4t),
      path(keys::kJetpack),
      path(keys::kTegraJetpackVersions),
      path(keys::kTegraJetpackCandidates),
      path(keys::kBoardModel),
      path(keys::kModule),
      path(keys::kPartNumber),
      path(keys::kSoc),
      path(keys::kPowerNvpmodelModeName),
      path(keys::kPowerNvpmodelModeId),
      path(keys::kContainerDetected),
      path(keys::kCudaToolkitVersion),
      path(keys::kNvidiaDriverVersion),
      path(keys::kDriverLoaded),
      path(keys::kDriverVersion),
      path(keys::kDriverError),
      path(keys::kDeviceCount),
      each(keys::kDevices, keys::kDeviceName),
      each(keys::kDevices, keys::kDeviceMemoryBytes),
      path(keys::kTorchVersion),
      path(keys::kTorchCudaVersion),
  }};
  return kJudged;
}

void number_lanes(std::vector<LoadedEvidence>& files) {
  // Each thread interned its own keys and lanes: equal values may be
  // different objects. Each object is looked up by value once.
  std::map<std::pair<std::string_view, std::string_view>, std::uint32_t> platform_ids;
  std::unordered_map<std::string_view, std::uint32_t> lane_ids;
  std::unordered_map<const PlatformKey*, std::uint32_t> by_key;
  std::unordered_map<const std::string*, std::uint32_t> by_lane;
  for (auto& le : files) {
    auto k = by_key.find(le.platform.get());
    if (k == by_key.end()) {
      auto id = platform_ids
                    .try_emplace({le.platform->platform, le.platform->runtime},
                                 static_cast<std::uint32_t>(platform_ids.size()))
                    .first->second;
      k = by_key.emplace(le.platform.get(), id).first;
    }
    auto l = by_lane.find(le.lane.get());
    if (l == by_lane.end()) {
      auto id =
          lane_ids.try_emplace(*le.lane, static_cast<std::uint32_t>(lane_ids.size())).first->second;
      l = by_lane.emplace(le.lane.get(), id).first;
    }
    le.platform_id = k->second;
    le.lane_id = l->second;
  }
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
  number_lanes(files);
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
  // The directories are listed on every core too: a fleet's month is thousands.
  std::vector<std::optional<Result<DirListing>>> listings(dirs.size());
  for_each_index(
      dirs.size(), threads_for(dirs.size() * 8, threads), [] { return 0; },
      [&](int, std::size_t i) { listings[i] = json_files_in(dirs[i]); }, [](int) {});
  struct Task {
    const std::string* dir;
    std::string name;
    bool enveloped;
  };
  std::vector<Task> tasks;
  for (std::size_t d = 0; d < dirs.size(); ++d) {
    auto& listing = *listings[d];
    if (!listing) return listing.error();
    for (std::size_t i = 0; i < listing->names.size(); ++i)
      tasks.push_back({&dirs[d], std::move(listing->names[i]), listing->enveloped[i]});
  }
  listings = {};
  // Each file is judged into its place; the skipped ones are taken out after.
  EvidenceSet set;
  set.loaded.resize(tasks.size());
  std::vector<std::pair<std::size_t, SkippedFile>> skipped;
  // Each thread interns the platform keys and lanes it makes; the set keeps them alive.
  struct Worker {
    Reader reader;
    Interner interner;
    std::vector<std::pair<std::size_t, SkippedFile>> skipped;
  };
  for_each_index(
      tasks.size(), threads_for(tasks.size(), threads), [] { return Worker{}; },
      [&](Worker& w, std::size_t i) {
        const Task& t = tasks[i];
        if (auto s = load_one(*t.dir, t.name, file_in(*t.dir, t.name), t.enveloped, *ctx, w.reader,
                              w.interner, set.loaded[i]))
          w.skipped.emplace_back(i, std::move(*s));
      },
      [&](Worker& w) {
        for (auto& s : w.skipped) skipped.push_back(std::move(s));
      });
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
  number_lanes(set.loaded);
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

void EvidenceSet::check_signatures(const std::vector<const LoadedEvidence*>& files) const {
  std::vector<const LoadedEvidence*> todo;
  for (const auto* le : files)
    if (!le->signature_checked) todo.push_back(le);
  // Each file is checked by one thread; the set's context is only read.
  for_each_index(
      todo.size(), threads_for(todo.size() * 32, 0), [] { return 0; },
      [&](int, std::size_t i) { (void)signature(*todo[i]); }, [](int) {});
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
