// SPDX-License-Identifier: Apache-2.0
// "trusted_keys": the public keys whose signatures make evidence count
// (docs/trust.md, docs/gates.md). Parsed as strictly as the rest of the
// policy: a key that is not what it claims to be is an issue, never ignored.
#include <fmt/format.h>

#include <set>

#include "jetgate/core/identifier.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/policy/policy_parse_detail.hpp"
#include "jetgate/trust/encoding.hpp"

namespace jetgate::policy::detail {
namespace {

constexpr const char* kFix =
    "copy the entry from the FILE.pub.json `jetgate keygen` wrote (docs/trust.md)";

std::optional<trust::TrustedKey> parse_entry(const nlohmann::json& e, const std::string& where,
                                             const IssueSink& sink) {
  if (!e.is_object()) {
    sink.issue("policy", where + " is not an object", kFix);
    return std::nullopt;
  }
  const std::size_t before = sink.issues->size();
  reject_unknown_keys(e, {"key_id", "public_key", "owner", "expires"}, where, "policy", sink);
  trust::TrustedKey k;
  auto text = [&](const char* key) {
    return e.contains(key) && e[key].is_string() ? e[key].get<std::string>() : std::string();
  };
  auto raw = trust::decode_public_key(text("public_key"));
  if (!raw)
    sink.issue("policy", where + ": \"public_key\" is not the base64 of a 32-byte Ed25519 key",
               kFix);
  else
    k.public_key = *raw;
  k.key_id = text("key_id");
  if (!trust::is_key_id(k.key_id))
    sink.issue("policy", where + ": \"key_id\" is not 64 lowercase hex digits", kFix);
  else if (raw && !same_identifier(trust::key_id_of(*raw), k.key_id))
    sink.issue("policy",
               where +
                   ": \"key_id\" is not the SHA-256 of \"public_key\" (one of them was "
                   "changed or copied from another key)",
               kFix);
  k.owner = text("owner");
  if (k.owner.empty())
    sink.issue("policy", where + ": missing non-empty string \"owner\"",
               "name the runner or person the key belongs to");
  if (e.contains("expires")) {
    auto day = e["expires"].is_string() ? evidence::parse_iso_date(text("expires")) : std::nullopt;
    if (!day) sink.issue("policy", where + ": \"expires\" is not a date", "write it as YYYY-MM-DD");
    k.expires = day;
  }
  if (sink.issues->size() != before) return std::nullopt;
  return k;
}

}  // namespace

std::vector<trust::TrustedKey> parse_trusted_keys(const nlohmann::json& j, const IssueSink& sink) {
  std::vector<trust::TrustedKey> keys;
  if (!j.is_array() || j.empty()) {
    sink.issue("policy", "\"trusted_keys\" must be a non-empty list of keys",
               "add the runner's public key entry, or remove \"trusted_keys\" to accept unsigned "
               "evidence");
    return keys;
  }
  std::set<std::string> seen;
  for (std::size_t i = 0; i < j.size(); ++i) {
    auto k = parse_entry(j[i], fmt::format("trusted_keys[{}]", i), sink);
    if (!k) continue;
    if (!seen.insert(k->key_id).second) {
      sink.issue("policy", fmt::format("trusted_keys[{}]: key {} is listed twice", i, k->key_id),
                 "keep one entry per key");
      continue;
    }
    keys.push_back(std::move(*k));
  }
  return keys;
}

}  // namespace jetgate::policy::detail
