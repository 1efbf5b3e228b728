// SPDX-License-Identifier: Apache-2.0
// Every evidence file in the directories a user names, each judged as it is
// read and kept as a small verdict record: a fleet's months of evidence
// (100k files) fit in memory and are judged in seconds (docs/claims.md, "Many
// evidence files"). A file that cannot be read or does not parse as evidence
// is skipped and reported, never fatal: one corrupt file must not hide the
// others (it backs nothing either way).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/result.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/keys.hpp"
#include "jetgate/trust/verify.hpp"

namespace jetgate::claims {

// One evidence file as the claims judge it: the OBLITERATUS fields, the
// verdict on everything but its signature, and what it speaks for. The rest
// of the document is not kept (evidence.extra is empty); reread() gives it.
struct LoadedEvidence {
  std::string file;                             // path as the user named it: DIR/NAME.json
  evidence::Evidence evidence;                  // the OBLITERATUS fields; extra is empty
  GateVerdict unsigned_verdict;                 // judge_unsigned under the set's rules
  std::shared_ptr<const PlatformKey> platform;  // shared by the files of one platform
  std::shared_ptr<const std::string> lane;      // lane_of(): the board and lane, shared alike
  // Numbers for them within the set (number_lanes): files with the same
  // platform and runtime have the same platform_id, and the same lane_id when
  // also on the same board and lane. Decisions group by these, not by strings.
  std::uint32_t platform_id = 0, lane_id = 0;
  std::optional<std::chrono::sys_seconds> when;  // generated_at; none when undated
  // Without trusted keys: whether GATE.dsse.json is beside it (nothing is
  // checked). With them it is checked when a decision first needs it
  // (EvidenceSet::signature); signature_checked says whether that happened.
  mutable trust::SignatureCheck signature;
  mutable bool signature_checked = false;
  // With trusted keys: a keyed hash of the bytes judged, so the read that checks
  // the signature proves it has the same bytes (trust::content_tag).
  std::uint64_t tag = 0;
};

struct SkippedFile {
  std::string file;
  std::string why;   // one line: what is wrong with it
  std::string gate;  // the gate its name speaks for (DIR/GATE.json), "" when the name is no gate id
};

// What a set was judged by and checks signatures with.
struct JudgeContext {
  JudgeRules rules;
  std::vector<trust::TrustedKey> trusted;  // empty: signatures are not checked
  std::optional<std::string> repository;   // the envelope's subject must name it, when given
  trust::ContentTagKey tag_key{};          // fresh for each set (trust::content_tag)
  // judge_set's documents, whole, by file: what reread() gives for them.
  std::map<std::string, nlohmann::json> documents;
};

struct EvidenceSet {
  std::vector<LoadedEvidence> loaded;  // sorted by file
  std::vector<SkippedFile> skipped;    // sorted by file
  std::shared_ptr<const JudgeContext> context = std::make_shared<JudgeContext>();

  const JudgeRules& rules() const { return context->rules; }
  // The signature of a loaded file, checked on first use: the file is read
  // again, and when its bytes are not the ones judged, the signature is
  // rejected. Decisions ask from one thread at a time.
  const trust::SignatureCheck& signature(const LoadedEvidence& le) const;
  // The whole verdict: with_signature(unsigned_verdict, signature(le)).
  GateVerdict verdict(const LoadedEvidence& le) const;
  // Whether it backs a claim; the signature is checked only when nothing else already says no.
  bool backs(const LoadedEvidence& le) const;
  // signature() of each of files not checked yet, on every core; then
  // signature() answers at once. For a decision that needs many.
  void check_signatures(const std::vector<const LoadedEvidence*>& files) const;
  // The whole document again (an error when the file went away or changed
  // since: with trusted keys any byte, else anything the verdict, platform
  // key or lane reads): what the summary shows of a deciding file.
  Result<evidence::Evidence> reread(const LoadedEvidence& le) const;
};

// Reads DIR/*.json (not recursive) of each directory and judges each file
// under `rules`. A directory that is missing or unreadable is an Error
// (unusable input); files inside are skipped with a reason. GATE.dsse.json
// files are envelopes, not evidence: with `trusted` keys each is checked with
// its GATE.json (trust/verify.hpp), and the subject's name against
// `repository` when given, when a decision needs it.
// Each file is read once and parsed once (core/fast_json.hpp) into only what
// the verdict, the platform key and the lane read (judged_keys()), on
// `threads` threads (0: one per core); the result does not depend on how many.
Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs,
                                       const JudgeRules& rules,
                                       const std::vector<trust::TrustedKey>& trusted = {},
                                       const std::optional<std::string>& repository = {},
                                       unsigned threads = 0);

// A set of evidence documents already in memory (whole, in evidence.extra),
// judged as the loader judges files; for tests and callers that build
// evidence themselves. Signatures are taken as given (signature_checked), and
// reread() gives the documents kept in memory.
EvidenceSet judge_set(std::vector<LoadedEvidence> files, const JudgeRules& rules);

// The verdict record of one document: unsigned verdict, platform key, lane
// and date, from le.evidence.extra, which is then emptied.
void record_verdict(LoadedEvidence& le, const JudgeRules& rules);

// Gives each file its platform_id and lane_id (the loader and judge_set do).
void number_lanes(std::vector<LoadedEvidence>& files);

// The members of an evidence document the verdict, the platform key and the
// lane read (judge_unsigned, platform_key, lane_of): the loader keeps only these.
const JsonKeep& judged_keys();

}  // namespace jetgate::claims
