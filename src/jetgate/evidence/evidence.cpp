// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/evidence.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <limits>

#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/evidence_read.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::evidence {
namespace {

const char* const kObliteratusKeys[] = {"schema_version", "generated_at", "git_sha", "reason",
                                        "exit_code",      "counts",       "gate",    "status"};

bool is_lower_hex_sha(const std::string& s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Error field_error(const std::string& field, const std::string& what) {
  return make_error(what, "/" + field,
                    "evidence files are written by `jetgate run` or OBLITERATUS' "
                    "run_conditional_gate.py; re-run the gate instead of editing the file");
}

Result<std::int64_t> read_count(const nlohmann::json& counts, const char* key) {
  if (!counts.contains(key) || counts[key].is_null()) return std::int64_t{0};
  const auto& v = counts[key];
  // Read without narrowing: a count that does not fit 64 bits must not wrap to a small one.
  auto n = integer_in_range(v, 0, std::numeric_limits<std::int64_t>::max());
  if (!n)
    return field_error(std::string("counts/") + key,
                       fmt::format("counts.{} must be a non-negative integer below 2^63, not {}",
                                   key, quoted_text(dump_json(v), 40)));
  return *n;
}

Result<Counts> read_counts(const nlohmann::json& j) {
  Counts c;
  if (!j.contains("counts") || j["counts"].is_null()) return c;
  const auto& counts = j["counts"];
  if (!counts.is_object()) return field_error("counts", "counts must be an object");
  std::int64_t* fields[] = {&c.tests, &c.failures, &c.errors, &c.skipped};
  const char* names[] = {"tests", "failures", "errors", "skipped"};
  for (int i = 0; i < 4; ++i) {
    auto v = read_count(counts, names[i]);
    if (!v) return v.error();
    *fields[i] = *v;
  }
  return c;
}

Result<GateStatus> read_status(const nlohmann::json& j) {
  if (!j.contains("status") || !j["status"].is_string())
    return field_error("status", "missing string field \"status\"");
  auto s = j["status"].get<std::string>();
  for (auto st : {GateStatus::passed, GateStatus::failed, GateStatus::not_run})
    if (s == to_string(st)) return st;
  return field_error("status",
                     fmt::format("status {} is not passed, failed or not_run", quoted_text(s)));
}

Result<std::string> read_string(const nlohmann::json& j, const char* key, bool required) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required) return field_error(key, fmt::format("missing string field \"{}\"", key));
    return std::string();
  }
  if (!j[key].is_string()) return field_error(key, fmt::format("\"{}\" must be a string", key));
  return j[key].get<std::string>();
}

}  // namespace

Outcome to_status(GateStatus s) {
  switch (s) {
    case GateStatus::passed:
      return Outcome::pass;
    case GateStatus::failed:
      return Outcome::fail;
    case GateStatus::not_run:
      return Outcome::not_run;
  }
  return Outcome::not_run;
}

const char* to_string(GateStatus s) {
  switch (s) {
    case GateStatus::passed:
      return "passed";
    case GateStatus::failed:
      return "failed";
    case GateStatus::not_run:
      return "not_run";
  }
  return "not_run";
}

nlohmann::json to_json(const Evidence& e) {
  nlohmann::json j = e.extra.is_object() ? e.extra : nlohmann::json::object();
  j["schema_version"] = e.schema_version;
  j["gate"] = e.gate;
  j["status"] = to_string(e.status);
  j["generated_at"] = e.generated_at;
  j["git_sha"] = e.git_sha;
  j["reason"] = e.reason;
  j["exit_code"] = e.exit_code ? nlohmann::json(*e.exit_code) : nlohmann::json(nullptr);
  j["counts"] = {{"tests", e.counts.tests},
                 {"failures", e.counts.failures},
                 {"errors", e.counts.errors},
                 {"skipped", e.counts.skipped}};
  return j;
}

Result<Evidence> evidence_from_json(const nlohmann::json& j) {
  nlohmann::json copy = j;
  return evidence_from_json(std::move(copy));
}

Result<Evidence> evidence_from_json(nlohmann::json&& doc) {
  // Read through a const reference: operator[] must never add a key.
  const nlohmann::json& j = doc;
  if (!j.is_object()) return field_error("", "evidence must be a JSON object");
  Evidence e;
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer())
    return field_error("schema_version", "missing integer field \"schema_version\"");
  if (!integer_in_range(j["schema_version"], 1, 1))
    return field_error("schema_version",
                       fmt::format("schema_version {} is not supported (only 1)",
                                   quoted_text(dump_json(j["schema_version"]), 40)));
  auto gate = read_string(j, "gate", true);
  if (!gate) return gate.error();
  if (gate->empty()) return field_error("gate", "\"gate\" is empty");
  if (auto st = validate_gate_id(*gate, "/gate"); !st)
    return field_error("gate", st.error().what + " (" + st.error().hint + ")");
  e.gate = *gate;
  auto status = read_status(j);
  if (!status) return status.error();
  e.status = *status;
  auto generated = read_string(j, "generated_at", true);
  if (!generated) return generated.error();
  if (!utc_date_of_timestamp(*generated))
    return field_error("generated_at",
                       fmt::format("generated_at {} is not an ISO-8601 timestamp with a UTC "
                                   "offset (e.g. 2026-11-29T16:23:05Z)",
                                   quoted_text(*generated)));
  e.generated_at = *generated;
  auto sha = read_string(j, "git_sha", true);
  if (!sha) return sha.error();
  if (*sha != "local" && !is_lower_hex_sha(*sha))
    return field_error("git_sha", fmt::format("git_sha {} is neither 40 lowercase hex digits "
                                              "nor \"local\"",
                                              quoted_text(*sha)));
  e.git_sha = *sha;
  auto reason = read_string(j, "reason", false);
  if (!reason) return reason.error();
  e.reason = *reason;
  if (j.contains("exit_code") && !j["exit_code"].is_null()) {
    if (!j["exit_code"].is_number_integer())
      return field_error("exit_code", "exit_code must be an integer or null");
    // Checked before narrowing: 4294967296 must not wrap to a "successful" 0.
    const auto& code = j["exit_code"];
    auto value =
        integer_in_range(code, std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
    if (!value)
      return field_error("exit_code",
                         fmt::format("exit_code {} is outside the range of an exit status",
                                     quoted_text(dump_json(code), 40)));
    e.exit_code = static_cast<int>(*value);
  }
  auto counts = read_counts(j);
  if (!counts) return counts.error();
  e.counts = *counts;
  e.extra = std::move(doc);
  for (const char* k : kObliteratusKeys) e.extra.erase(k);
  return e;
}

Result<std::string> read_evidence_text(const std::string& path) {
  std::filesystem::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  auto root = fs::RootFs::open(dir);
  if (!root) return make_error("cannot open directory: " + root.error().what, dir);
  return read_evidence_text(*root, p.filename().string(), path);
}

Result<std::string> read_evidence_text(const fs::RootFs& dir, const std::string& name,
                                       const std::string& path) {
  std::string text;
  if (auto st = read_evidence_text(dir, name, path, text); !st) return st.error();
  return text;
}

Status read_evidence_text(const fs::RootFs& dir, const std::string& name, const std::string& path,
                          std::string& text) {
  auto st = dir.read_into(name, text, kMaxEvidenceBytes);
  if (!st) return make_error(st.error().what, path, st.error().hint);
  return Ok{};
}

Result<Evidence> evidence_from_text(std::string_view text, const std::string& path) {
  return evidence_from_document(parse_json_fast(text, path), path);
}

Result<Evidence> evidence_from_document(Result<nlohmann::json> parsed, const std::string& path) {
  if (!parsed)
    return make_error(parsed.error().what + " (empty, truncated or corrupt)", parsed.error().where,
                      "re-run the gate to write fresh evidence");
  auto e = evidence_from_json(std::move(*parsed));
  if (!e) {
    const auto& err = e.error();
    return make_error(
        err.what, path + (err.where.empty() || err.where == "/" ? "" : "#" + err.where), err.hint);
  }
  return e;
}

Result<Evidence> read_evidence(const std::string& path) {
  auto text = read_evidence_text(path);
  if (!text) return text.error();
  return evidence_from_text(*text, path);
}

std::string evidence_file_text(const Evidence& e) {
  // Callers repair text first (utf8_json.hpp) and say where; replacing here
  // too means a string that slipped through can never abort the write.
  return to_json(e).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

namespace {

// The text write_evidence writes, or why it must not: never evidence jetgate's own
// readers refuse.
Result<std::string> writable_text(const Evidence& e) {
  if (auto st = validate_gate_id(e.gate, "evidence gate"); !st) return st.error();
  std::string text = evidence_file_text(e);
  if (text.size() > kMaxEvidenceBytes)
    return make_error(
        fmt::format("the evidence of gate {} would be {} bytes, over the {} bytes (8 MiB) every "
                    "reader of evidence accepts (check, support, history); nothing was written",
                    e.gate, text.size(), kMaxEvidenceBytes),
        e.gate + ".json",
        "see which facts are that large (`jetgate probe --json`: CDI specs under "
        "/platform/tegra/driver/cdi, probe details) and remove what the machine should not "
        "have, or report it as a jetgate bug");
  return text;
}

}  // namespace

Result<std::string> write_evidence(const std::string& dir, const Evidence& e) {
  auto text = writable_text(e);
  if (!text) return text.error();
  return fs::write_file_atomically(dir, e.gate + ".json", *text);
}

Result<std::string> write_evidence(const fs::DirHandle& dir, const Evidence& e) {
  auto text = writable_text(e);
  if (!text) return text.error();
  return fs::write_file_atomically(dir, e.gate + ".json", *text);
}

}  // namespace jetgate::evidence
