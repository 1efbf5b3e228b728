// SPDX-License-Identifier: Apache-2.0
#include "jetgate/trust/keys.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/trust/encoding.hpp"

namespace jetgate::trust {
namespace {

namespace stdfs = std::filesystem;

constexpr std::size_t kMaxSecretFileBytes = 4096;

std::string errno_text(int err) {
  return std::strerror(err);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Result<std::string> read_private_file(const std::string& path, unsigned* owner = nullptr) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0)
    return make_error("cannot open the signing key: " + errno_text(errno), path,
                      "pass the secret key file `jetgate keygen` wrote");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    return make_error("cannot stat the signing key: " + errno_text(errno), path);
  if (!S_ISREG(st.st_mode))
    return make_error("the signing key is not a regular file", path,
                      "pass the secret key file `jetgate keygen` wrote");
  if (owner) *owner = static_cast<unsigned>(st.st_uid);
  // A key others can read is a key others may have: refuse it rather than
  // sign with something that may no longer be secret.
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
    return make_error(fmt::format("the secret key can be read or changed by group or others "
                                  "(mode {:04o}), so it may not be secret any more",
                                  st.st_mode & 07777),
                      path, "chmod 600 " + path + ", and rotate the key if others could read it");
  std::string text(kMaxSecretFileBytes + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error("cannot read the signing key: " + errno_text(errno), path);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > kMaxSecretFileBytes)
    return make_error("the signing key file is larger than a key file can be", path,
                      "pass the secret key file `jetgate keygen` wrote");
  text.resize(got);
  return text;
}

Result<SigningKey> key_from_document(const nlohmann::json& j, const std::string& path) {
  auto bad = [&](const std::string& what) {
    return make_error(what, path,
                      "pass the secret key file `jetgate keygen` wrote, not the .pub.json file");
  };
  if (!j.is_object()) return bad("the signing key file is not a JSON object");
  for (const auto& [key, value] : j.items())
    if (key != "format" && key != "key_id" && key != "seed")
      return bad("unknown key " + quoted_text(key) + " in the signing key file");
  if (!j.contains("format") || j["format"] != kSecretKeyFormat)
    return bad(fmt::format("\"format\" is not \"{}\"", kSecretKeyFormat));
  if (!j.contains("seed") || !j["seed"].is_string()) return bad("no \"seed\" string");
  auto seed = from_base64(j["seed"].get<std::string>());
  if (!seed || seed->size() != crypto_sign_SEEDBYTES)
    return bad("\"seed\" is not the base64 of 32 bytes");
  std::array<unsigned char, 32> raw{};
  std::memcpy(raw.data(), seed->data(), raw.size());
  sodium_memzero(seed->data(), seed->size());
  SigningKey key = SigningKey::from_seed(raw);
  sodium_memzero(raw.data(), raw.size());
  if (!j.contains("key_id") || j["key_id"] != key.key_id())
    return bad("\"key_id\" does not match the key (it must be the SHA-256 of the public key)");
  return key;
}

// O_EXCL: the file is born 0600 (less the umask) and was never anybody else's.
Status write_secret_file(const std::string& path, const std::string& text) {
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0)
    return make_error("cannot create the secret key file: " + errno_text(errno), path,
                      errno == EEXIST ? "pass --force to replace it" : "");
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      ::unlink(path.c_str());
      return make_error("cannot write the secret key file: " + errno_text(err), path);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd.get()) != 0) {
    int err = errno;
    ::unlink(path.c_str());
    return make_error("cannot write the secret key file: " + errno_text(err), path);
  }
  return Ok{};
}

bool exists_at(const std::string& path) {
  std::error_code ec;
  return stdfs::symlink_status(path, ec).type() != stdfs::file_type::not_found;
}

}  // namespace

SigningKey SigningKey::from_seed(const std::array<unsigned char, 32>& seed) {
  init_sodium();
  SigningKey k;
  crypto_sign_seed_keypair(k.public_.data(), k.secret_.data(), seed.data());
  k.key_id_ = key_id_of(k.public_key());
  return k;
}

SigningKey::~SigningKey() {
  sodium_memzero(secret_.data(), secret_.size());
}

std::string SigningKey::public_key() const {
  return std::string(reinterpret_cast<const char*>(public_.data()), public_.size());
}

std::string SigningKey::sign(std::string_view message) const {
  std::array<unsigned char, crypto_sign_BYTES> sig{};
  crypto_sign_detached(sig.data(), nullptr, reinterpret_cast<const unsigned char*>(message.data()),
                       message.size(), secret_.data());
  return std::string(reinterpret_cast<const char*>(sig.data()), sig.size());
}

std::optional<std::string> decode_public_key(std::string_view base64) {
  auto raw = from_base64(base64);
  if (!raw || raw->size() != crypto_sign_PUBLICKEYBYTES) return std::nullopt;
  return raw;
}

Result<SigningKey> load_signing_key(const std::string& path) {
  unsigned owner = 0;
  auto text = read_private_file(path, &owner);
  if (!text) return text.error();
  auto parsed = parse_json_text(*text, path);
  sodium_memzero(text->data(), text->size());
  if (!parsed) return parsed.error();
  auto key = key_from_document(*parsed, path);
  if (parsed->contains("seed") && (*parsed)["seed"].is_string()) {
    auto& s = (*parsed)["seed"].get_ref<std::string&>();
    sodium_memzero(s.data(), s.size());
  }
  if (key) key->file_owner_ = owner;
  return key;
}

Result<WrittenKeyPair> write_key_pair(const std::string& path, const std::string& owner,
                                      bool force) {
  if (owner.empty())
    return make_error(
        "the key's owner is empty", "--owner",
        "name the runner or person the key belongs to, e.g. --owner jetson-orin-runner-1");
  // The owner goes into JSON, which must be UTF-8: refused here, before any
  // file exists, rather than half a pair written and an internal error.
  if (!is_valid_utf8(owner))
    return make_error("the key's owner is not valid UTF-8", "--owner",
                      "name the runner or person the key belongs to in UTF-8 text");
  WrittenKeyPair out;
  out.secret_path = path;
  out.public_path = path + kPublicKeySuffix;
  for (const auto& p : {out.secret_path, out.public_path}) {
    if (exists_at(p) && !force)
      return make_error("exists: refusing to overwrite a key", p,
                        "pass --force to replace it (signatures by the old key stop verifying once "
                        "the policy drops it)");
    if (auto st = fs::check_output_path(p); !st) return st.error();
  }
  init_sodium();
  std::array<unsigned char, 32> seed{};
  randombytes_buf(seed.data(), seed.size());
  SigningKey key = SigningKey::from_seed(seed);
  std::string seed_b64 =
      to_base64(std::string_view(reinterpret_cast<const char*>(seed.data()), seed.size()));
  sodium_memzero(seed.data(), seed.size());
  nlohmann::json secret = {
      {"format", kSecretKeyFormat}, {"key_id", key.key_id()}, {"seed", seed_b64}};
  std::string text = secret.dump(2) + "\n";
  sodium_memzero(seed_b64.data(), seed_b64.size());
  // The new pair is written beside the old one first; the old pair is
  // replaced only once both new files are complete (a full disk leaves the
  // old pair as it was).
  const std::string secret_tmp = fmt::format("{}.new-{}.tmp", path, ::getpid());
  ::unlink(secret_tmp.c_str());
  auto written = write_secret_file(secret_tmp, text);
  sodium_memzero(text.data(), text.size());
  if (!written) return written.error();
  out.key_id = key.key_id();
  out.public_entry = {
      {"key_id", key.key_id()}, {"public_key", to_base64(key.public_key())}, {"owner", owner}};
  stdfs::path pub(out.public_path);
  std::string dir = pub.has_parent_path() ? pub.parent_path().string() : ".";
  auto pub_file = fs::AtomicFile::create(dir, pub.filename().string());
  Status pub_ready =
      pub_file ? pub_file->write(out.public_entry.dump(2) + "\n") : Status(pub_file.error());
  if (!pub_ready) {
    ::unlink(secret_tmp.c_str());
    return pub_ready.error();
  }
  if (::rename(secret_tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(secret_tmp.c_str());
    return make_error("cannot put the new secret key in place: " + errno_text(err), path);
  }
  auto pub_written = pub_file->commit();
  if (!pub_written) return pub_written.error();
  return out;
}

}  // namespace jetgate::trust
