// SPDX-License-Identifier: Apache-2.0
// Whether a gate's evidence is signed, by whom, and over exactly that
// evidence (docs/trust.md). The loader of evidence runs this for every
// GATE.json it reads; the one verdict (claims/evidence_verdict) decides what
// the outcome means for a claim, including key expiry against --today.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::trust {

enum class Signature {
  not_checked,  // no trusted keys to check against (the envelope may or may not exist)
  unsigned_,    // trusted keys given, no GATE.dsse.json beside GATE.json
  rejected,     // an envelope that does not prove the evidence (why says how)
  verified,     // a valid signature by a trusted key over exactly this evidence
};

struct SignatureCheck {
  Signature outcome = Signature::not_checked;
  bool envelope_present = false;
  std::string why;  // rejected or unsigned: the reason, in words
  std::string key_id, owner;
  std::optional<evidence::Date> key_expires;  // verified: the key's last valid day
};

// What the evidence the envelope must prove: GATE.json's document as read,
// the commit it names, and the repository the policy names (when it does).
struct SignedSubject {
  const nlohmann::json* document = nullptr;
  std::string git_sha;
  std::optional<std::string> repository;
};

// Checks envelope text against the evidence and the trusted keys: payload
// type, canonical base64, exactly one signature, by a trusted key, valid over
// the PAE, a Statement v1 with one subject {name, digest {gitCommit}} for
// this commit (and repository), jetgate's predicate type, and a predicate
// equal to the document. keys must not be empty.
SignatureCheck verify_envelope(std::string_view envelope_text, const SignedSubject& subject,
                               const std::vector<TrustedKey>& keys);

// For DIR/GATE.json: reads DIR/GATE.dsse.json and the document, and checks
// them. Without keys only whether an envelope exists is recorded.
SignatureCheck check_evidence_file(const std::string& evidence_file, const std::string& git_sha,
                                   const std::vector<TrustedKey>& keys,
                                   const std::optional<std::string>& repository);

// check_evidence_file over GATE.json's document as the caller already read and
// parsed it (the loader of evidence: no second read, no second parse). Only
// GATE.dsse.json is read. The same outcome as check_evidence_file whenever
// document is what GATE.json parses to.
SignatureCheck check_evidence_document(const std::string& evidence_file,
                                       const nlohmann::json& document, const std::string& git_sha,
                                       const std::vector<TrustedKey>& keys,
                                       const std::optional<std::string>& repository);

}  // namespace jetgate::trust
