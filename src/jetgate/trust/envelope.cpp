// SPDX-License-Identifier: Apache-2.0
#include "jetgate/trust/envelope.hpp"

#include <fmt/format.h>

#include "jetgate/core/json_text.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/trust/encoding.hpp"

namespace jetgate::trust {

// Evidence documents are capped at a few MiB by the evidence reader; the
// envelope of one is at most 4/3 of that plus the statement.
inline constexpr std::size_t kMaxSignedDocumentBytes = 16u << 20;

std::string pae(std::string_view payload_type, std::string_view payload) {
  return fmt::format("DSSEv1 {} {} {} {}", payload_type.size(), payload_type, payload.size(),
                     payload);
}

nlohmann::json make_statement(const std::string& repository, const std::string& git_sha,
                              const nlohmann::json& evidence_document) {
  return {{"_type", kStatementType},
          {"subject",
           nlohmann::json::array({{{"name", repository}, {"digest", {{"gitCommit", git_sha}}}}})},
          {"predicateType", kPredicateType},
          {"predicate", evidence_document}};
}

nlohmann::json sign_statement(const nlohmann::json& statement, const SigningKey& key) {
  std::string payload = dump_json(statement);
  std::string sig = key.sign(pae(kPayloadType, payload));
  return {
      {"payloadType", kPayloadType},
      {"payload", to_base64(payload)},
      {"signatures", nlohmann::json::array({{{"keyid", key.key_id()}, {"sig", to_base64(sig)}}})}};
}

std::string envelope_name(const std::string& gate) {
  return gate + kEnvelopeSuffix;
}

bool is_envelope_name(std::string_view file_name) {
  std::string_view suffix = kEnvelopeSuffix;
  return file_name.size() > suffix.size() &&
         file_name.substr(file_name.size() - suffix.size()) == suffix;
}

Result<std::string> sign_evidence_text(const std::string& dir, const std::string& gate,
                                       const std::string& evidence_text,
                                       const std::string& repository, const std::string& git_sha,
                                       const SigningKey& key) {
  auto handle = fs::DirHandle::open(dir);
  if (!handle) return handle.error();
  return sign_evidence_text(*handle, gate, evidence_text, repository, git_sha, key);
}

Result<std::string> sign_evidence_text(const fs::DirHandle& dir, const std::string& gate,
                                       const std::string& evidence_text,
                                       const std::string& repository, const std::string& git_sha,
                                       const SigningKey& key) {
  const std::string file = dir.shown(gate + ".json");
  if (evidence_text.size() > kMaxSignedDocumentBytes)
    return make_error("the evidence is too large to sign", file,
                      "the evidence document must stay under the signed-document limit");
  // The bytes written, parsed as a verifier will parse the file.
  auto doc = parse_json_text(evidence_text, file);
  if (!doc) return doc.error();
  auto envelope = sign_statement(make_statement(repository, git_sha, *doc), key);
  return fs::write_file_atomically(dir, envelope_name(gate), envelope.dump(2) + "\n");
}

}  // namespace jetgate::trust
