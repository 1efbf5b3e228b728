// SPDX-License-Identifier: Apache-2.0
// One evidence document per gate run (docs/evidence-schema.md). The fields
// OBLITERATUS' runner writes come first and keep their meaning, so evidence
// from either tool is read alike; jetgate adds platform facts, GPU facts,
// probe results, Python runtime facts and its own version.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/outcome.hpp"
#include "jetgate/core/result.hpp"
#include "jetgate/fs/atomic_write.hpp"

namespace jetgate::evidence {

// The gate's outcome as OBLITERATUS' evidence spells it ("status": "passed" |
// "failed" | "not_run"); kept on disk so either tool reads the other's files.
// Everywhere else jetgate speaks the one vocabulary (core/outcome.hpp): to_status().
enum class GateStatus { passed, failed, not_run };
const char* to_string(GateStatus s);  // "passed", "failed", "not_run"
Outcome to_status(GateStatus s);      // PASS, FAIL, NOT_RUN

struct Counts {
  std::int64_t tests = 0, failures = 0, errors = 0, skipped = 0;
};

struct Evidence {
  int schema_version = 1;
  std::string gate;
  GateStatus status = GateStatus::not_run;
  std::string generated_at;  // UTC ISO-8601, "2026-11-29T16:23:05Z"
  std::string git_sha;       // 40 lowercase hex digits or "local"
  std::string reason;
  std::optional<int> exit_code;
  Counts counts;
  // Everything else in the document (jetgate's additions: "jetgate",
  // "platform", "gpu", "probes", "python", "requirements", "command", ...),
  // kept as read so nothing is lost on a round trip.
  nlohmann::json extra = nlohmann::json::object();
};

nlohmann::json to_json(const Evidence& e);
// Validates the OBLITERATUS fields (types, status values, git_sha form);
// errors name the field.
Result<Evidence> evidence_from_json(const nlohmann::json& j);
// The same, moving j into Evidence::extra instead of copying it (j is left
// unspecified); what the loader of many files uses.
Result<Evidence> evidence_from_json(nlohmann::json&& j);
// Reads and validates PATH (capped size); errors name the file. It is
// evidence_from_text(read_evidence_text(PATH), PATH).
Result<Evidence> read_evidence(const std::string& path);
// The bytes of PATH, capped at the evidence size limit; errors name the file.
Result<std::string> read_evidence_text(const std::string& path);
// Parses and validates evidence text read from PATH (PATH only names it in errors).
// Parsed by parse_json_fast (core/fast_json.hpp): parse_json_text's values and errors.
Result<Evidence> evidence_from_text(std::string_view text, const std::string& path);
// evidence_from_text over a document already parsed from PATH's text (moved from).
Result<Evidence> evidence_from_document(Result<nlohmann::json> parsed, const std::string& path);
// The bytes of GATE.json for e, exactly as write_evidence writes them.
std::string evidence_file_text(const Evidence& e);
// The most bytes an evidence file may have: every reader (check, support, history
// ingest, the report) refuses a larger one, and write_evidence never writes one
// (generous for probe details and per-mode tables, small enough that a wrong file, a
// log or a core dump, is refused rather than parsed).
inline constexpr std::size_t kMaxEvidenceBytes = 8u << 20;
// Writes DIR/GATE.json atomically: temporary file in DIR, fsync, rename, fsync DIR.
// Refused, nothing written, when the text is over kMaxEvidenceBytes.
Result<std::string> write_evidence(const std::string& dir, const Evidence& e);
// Into the directory DIR holds open (`run` opens it before the command starts).
Result<std::string> write_evidence(const fs::DirHandle& dir, const Evidence& e);

}  // namespace jetgate::evidence
