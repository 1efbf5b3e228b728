// SPDX-License-Identifier: Apache-2.0
#include "jetgate/trust/verify.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include <cstring>
#include <filesystem>
#include <set>
#include <variant>

#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/identifier.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::trust {
namespace {

namespace stdfs = std::filesystem;

constexpr std::size_t kMaxEnvelopeBytes = 24u << 20;
constexpr std::size_t kMaxDocumentBytes = 16u << 20;

SignatureCheck rejected(std::string why) {
  SignatureCheck c;
  c.outcome = Signature::rejected;
  c.envelope_present = true;
  c.why = std::move(why);
  return c;
}

// Exactly these keys: anything else in a signed structure is a change nobody
// signed off (the DSSE envelope's keys are not covered by the signature).
std::string unexpected_keys(const nlohmann::json& j, const std::set<std::string>& known,
                            const std::string& where) {
  if (!j.is_object()) return where + " is not a JSON object";
  for (const auto& [key, value] : j.items())
    if (!known.count(key))
      return fmt::format("{} has an unexpected key {}", where, quoted_text(key));
  for (const auto& key : known)
    if (!j.contains(key)) return fmt::format("{} has no \"{}\"", where, key);
  return {};
}

std::string string_field(const nlohmann::json& j, const char* key) {
  return j[key].is_string() ? j[key].get<std::string>() : std::string();
}

// The JSON pointer of the first place a and b serialise differently
// (json's operator== holds 12 and 12.0 equal; the signature does not).
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b,
                             const nlohmann::json::json_pointer& at) {
  auto here = [&] { return at.empty() ? std::string("/") : at.to_string(); };
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      if (!b.contains(key)) return (at / key).to_string();
      if (auto d = first_difference(value, b[key], at / key); !d.empty()) return d;
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return (at / key).to_string();
    return {};
  }
  if (a.is_array() && b.is_array()) {
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
      if (auto d = first_difference(a[i], b[i], at / i); !d.empty()) return d;
    if (a.size() != b.size()) return (at / std::min(a.size(), b.size())).to_string();
    return {};
  }
  if (dump_json(a) != dump_json(b)) return here();
  return {};
}

// Same type and same value all the way down (keys in the same order, as
// nlohmann's objects are sorted): then first_difference finds nothing, and
// the common case, an honest signature, skips serialising every value.
bool strictly_equal(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case nlohmann::json::value_t::object: {
      const auto& x = a.get_ref<const nlohmann::json::object_t&>();
      const auto& y = b.get_ref<const nlohmann::json::object_t&>();
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), k = y.begin(); i != x.end(); ++i, ++k)
        if (i->first != k->first || !strictly_equal(i->second, k->second)) return false;
      return true;
    }
    case nlohmann::json::value_t::array: {
      const auto& x = a.get_ref<const nlohmann::json::array_t&>();
      const auto& y = b.get_ref<const nlohmann::json::array_t&>();
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!strictly_equal(x[i], y[i])) return false;
      return true;
    }
    case nlohmann::json::value_t::number_float:
      // Bit for bit: 0.0 and -0.0 serialise differently.
      return std::memcmp(&a.get_ref<const double&>(), &b.get_ref<const double&>(),
                         sizeof(double)) == 0;
    default:
      return a == b;
  }
}

struct OpenedEnvelope {
  std::string payload;
  std::string key_id;
  std::string signature;
};

std::variant<OpenedEnvelope, std::string> open_envelope(std::string_view text) {
  auto parsed = parse_json_fast(text, "envelope");
  if (!parsed) return "the envelope is not JSON: " + parsed.error().what;
  const auto& env = *parsed;
  if (auto why = unexpected_keys(env, {"payloadType", "payload", "signatures"}, "the envelope");
      !why.empty())
    return why;
  if (!env["payloadType"].is_string() || env["payloadType"] != kPayloadType)
    return fmt::format("the envelope's payloadType is {}, not \"{}\"",
                       quoted_text(dump_json(env["payloadType"])), kPayloadType);
  OpenedEnvelope out;
  auto payload = from_base64(string_field(env, "payload"));
  if (!env["payload"].is_string() || !payload)
    return "the envelope's payload is not canonical base64 (standard alphabet, padded)";
  out.payload = std::move(*payload);
  const auto& sigs = env["signatures"];
  if (!sigs.is_array() || sigs.size() != 1)
    return fmt::format("the envelope carries {} signatures; jetgate writes and accepts exactly one",
                       sigs.is_array() ? std::to_string(sigs.size()) : "no list of");
  if (auto why = unexpected_keys(sigs[0], {"keyid", "sig"}, "the signature"); !why.empty())
    return why;
  if (!sigs[0]["keyid"].is_string() || !is_key_id(sigs[0]["keyid"].get<std::string>()))
    return "the signature's keyid is not a key id (64 lowercase hex digits)";
  out.key_id = sigs[0]["keyid"].get<std::string>();
  auto sig = from_base64(string_field(sigs[0], "sig"));
  if (!sigs[0]["sig"].is_string() || !sig || sig->size() != crypto_sign_BYTES)
    return "the signature's sig is not the canonical base64 of a 64-byte Ed25519 signature";
  out.signature = std::move(*sig);
  return out;
}

// The signed statement says this evidence, for this commit, of this repository.
std::string statement_problem(const nlohmann::json& st, const SignedSubject& subject) {
  if (auto why =
          unexpected_keys(st, {"_type", "subject", "predicateType", "predicate"}, "the statement");
      !why.empty())
    return why;
  if (st["_type"] != kStatementType)
    return fmt::format("the statement's _type is {}, not \"{}\"",
                       quoted_text(dump_json(st["_type"])), kStatementType);
  if (st["predicateType"] != kPredicateType)
    return fmt::format("the statement's predicateType is {}, not jetgate's gate evidence (\"{}\")",
                       quoted_text(dump_json(st["predicateType"])), kPredicateType);
  const auto& subjects = st["subject"];
  if (!subjects.is_array() || subjects.size() != 1)
    return "the statement must have exactly one subject (the repository at the commit)";
  if (auto why = unexpected_keys(subjects[0], {"name", "digest"}, "the subject"); !why.empty())
    return why;
  if (auto why = unexpected_keys(subjects[0]["digest"], {"gitCommit"}, "the subject's digest");
      !why.empty())
    return why;
  const auto& name = subjects[0]["name"];
  if (!name.is_string() || name.get<std::string>().empty())
    return "the subject's name is not a repository name";
  if (subject.repository && name != *subject.repository)
    return fmt::format("the envelope is for repository {}, not the policy's {}",
                       quoted_text(name.get<std::string>()), quoted_text(*subject.repository));
  const auto& commit = subjects[0]["digest"]["gitCommit"];
  if (!commit.is_string() || commit != subject.git_sha)
    return fmt::format(
        "the envelope is for commit {}, but the evidence names {}: an envelope of another run",
        quoted_text(dump_json(commit), 64), quoted_text(subject.git_sha, 64));
  const auto& predicate = st["predicate"];
  // Compared as serialised JSON: 5 and 5.0 or a reordered list differ.
  if (strictly_equal(predicate, *subject.document)) return {};
  if (auto at = first_difference(predicate, *subject.document, nlohmann::json::json_pointer());
      !at.empty()) {
    return fmt::format(
        "the evidence differs from what was signed (first at {}): it was edited after signing, "
        "or the envelope is another gate's or another run's",
        quoted_text(at));
  }
  return {};
}

}  // namespace

SignatureCheck verify_envelope(std::string_view envelope_text, const SignedSubject& subject,
                               const std::vector<TrustedKey>& keys) {
  init_sodium();
  auto opened = open_envelope(envelope_text);
  if (auto* why = std::get_if<std::string>(&opened)) return rejected(*why);
  const auto& env = std::get<OpenedEnvelope>(opened);
  const TrustedKey* key = nullptr;
  for (const auto& k : keys)
    if (same_identifier(k.key_id, env.key_id)) key = &k;
  if (!key)
    return rejected(
        fmt::format("signed by key {}, which is not in the policy's trusted_keys", env.key_id));
  std::string message = pae(kPayloadType, env.payload);
  if (crypto_sign_verify_detached(
          reinterpret_cast<const unsigned char*>(env.signature.data()),
          reinterpret_cast<const unsigned char*>(message.data()), message.size(),
          reinterpret_cast<const unsigned char*>(key->public_key.data())) != 0)
    return rejected(fmt::format(
        "the signature does not verify with key {} ({}): the envelope was changed after signing",
        key->key_id, quoted_text(key->owner)));
  auto statement = parse_json_fast(env.payload, "payload");
  if (!statement) return rejected("the signed payload is not JSON: " + statement.error().what);
  if (auto why = statement_problem(*statement, subject); !why.empty()) return rejected(why);
  SignatureCheck ok;
  ok.outcome = Signature::verified;
  ok.envelope_present = true;
  ok.key_id = key->key_id;
  ok.owner = key->owner;
  ok.key_expires = key->expires;
  return ok;
}

namespace {

// Whether DIR/GATE.dsse.json exists, and the whole check when nothing needs reading.
std::optional<SignatureCheck> without_reading(const stdfs::path& dir, const std::string& envelope,
                                              const std::vector<TrustedKey>& keys) {
  SignatureCheck c;
  std::error_code ec;
  c.envelope_present =
      stdfs::symlink_status(dir / envelope, ec).type() != stdfs::file_type::not_found;
  if (keys.empty()) return c;
  if (!c.envelope_present) {
    c.outcome = Signature::unsigned_;
    c.why = fmt::format("the evidence is unsigned (no {} beside it)", envelope);
    return c;
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The envelope beside EVIDENCE_FILE checked over DOCUMENT, or, when DOCUMENT is null,
// over the evidence read again from beside the envelope.
SignatureCheck check_beside(const std::string& evidence_file, const nlohmann::json* document,
                            const std::string& git_sha, const std::vector<TrustedKey>& keys,
                            const std::optional<std::string>& repository) {
  stdfs::path p(evidence_file);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  std::string envelope = envelope_name(p.stem().string());
  if (auto done = without_reading(dir, envelope, keys)) return *done;
  auto root = fs::RootFs::open(dir);
  if (!root) return rejected("cannot read the envelope: " + root.error().what);
  auto env_text = root->read(envelope, kMaxEnvelopeBytes);
  if (!env_text) return rejected("cannot read " + envelope + ": " + env_text.error().what);
  std::optional<nlohmann::json> read_again;
  if (document == nullptr) {
    auto doc_text = root->read(p.filename().string(), kMaxDocumentBytes);
    if (!doc_text) return rejected("cannot read the evidence again: " + doc_text.error().what);
    auto doc = parse_json_fast(*doc_text, evidence_file);
    if (!doc) return rejected("cannot read the evidence again: " + doc.error().what);
    read_again = std::move(*doc);
    document = &*read_again;
  }
  return verify_envelope(*env_text, SignedSubject{document, git_sha, repository}, keys);
}

}  // namespace

SignatureCheck check_evidence_file(const std::string& evidence_file, const std::string& git_sha,
                                   const std::vector<TrustedKey>& keys,
                                   const std::optional<std::string>& repository) {
  return check_beside(evidence_file, nullptr, git_sha, keys, repository);
}

SignatureCheck check_evidence_document(const std::string& evidence_file,
                                       const nlohmann::json& document, const std::string& git_sha,
                                       const std::vector<TrustedKey>& keys,
                                       const std::optional<std::string>& repository) {
  return check_beside(evidence_file, &document, git_sha, keys, repository);
}

}  // namespace jetgate::trust
