// SPDX-License-Identifier: Apache-2.0
// Signed evidence: a DSSE envelope (https://github.com/secure-systems-lab/dsse,
// envelope.md and protocol.md) holding an in-toto Statement v1
// (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md):
//
//   GATE.dsse.json = {"payloadType": "application/vnd.in-toto+json",
//                     "payload": base64(STATEMENT),
//                     "signatures": [{"keyid": KEY_ID, "sig": base64(Ed25519(PAE))}]}
//   STATEMENT = {"_type": "https://in-toto.io/Statement/v1",
//                "subject": [{"name": REPOSITORY, "digest": {"gitCommit": GIT_SHA}}],
//                "predicateType": kPredicateType,
//                "predicate": the evidence document, exactly as GATE.json holds it}
//
// The signature covers DSSE's pre-authentication encoding of the payload, so
// neither the type nor the bytes can be swapped without breaking it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::trust {

inline constexpr const char* kPayloadType = "application/vnd.in-toto+json";
inline constexpr const char* kStatementType = "https://in-toto.io/Statement/v1";
inline constexpr const char* kPredicateType =
    "https://github.com/jetgate/jetgate/blob/main/docs/trust.md#gate-evidence-v1";
inline constexpr const char* kEnvelopeSuffix = ".dsse.json";

// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, lengths in ASCII decimal.
std::string pae(std::string_view payload_type, std::string_view payload);

// The statement for one gate's evidence.
nlohmann::json make_statement(const std::string& repository, const std::string& git_sha,
                              const nlohmann::json& evidence_document);

// The envelope, signed with key.
nlohmann::json sign_statement(const nlohmann::json& statement, const SigningKey& key);

// GATE.dsse.json beside GATE.json.
std::string envelope_name(const std::string& gate);
bool is_envelope_name(std::string_view file_name);

// Signs evidence_text, the bytes jetgate itself wrote to DIR/GATE.json
// (never the file read back: after the gate's command ran, anything left of
// it could have rewritten the file), and writes DIR/GATE.dsse.json
// atomically. Returns the envelope's path.
Result<std::string> sign_evidence_text(const std::string& dir, const std::string& gate,
                                       const std::string& evidence_text,
                                       const std::string& repository, const std::string& git_sha,
                                       const SigningKey& key);
// The same, into the directory DIR holds open (`run` opens it before the
// gate's command starts, so the command cannot point it elsewhere).
Result<std::string> sign_evidence_text(const fs::DirHandle& dir, const std::string& gate,
                                       const std::string& evidence_text,
                                       const std::string& repository, const std::string& git_sha,
                                       const SigningKey& key);

}  // namespace jetgate::trust
