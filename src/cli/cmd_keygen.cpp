// SPDX-License-Identifier: Apache-2.0
// `jetgate keygen FILE --owner NAME`: an Ed25519 key pair for signing
// evidence (docs/trust.md). FILE is the secret key (mode 0600, for the
// runner's secret store, never the repository); FILE.pub.json is the entry
// to add to the policy's "trusted_keys".
#include <iostream>
#include <sstream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::cli {
namespace {

struct KeygenArgs {
  std::string file;
  std::string owner;
  bool force = false;
  bool json = false;
};

int keygen(const KeygenArgs& a) {
  auto written = trust::write_key_pair(a.file, a.owner, a.force);
  if (!written) {
    std::cerr << "jetgate keygen: " << terminal_safe(written.error().message()) << "\n";
    return kExitUsage;
  }
  if (a.json) {
    // Paths as given may hold any bytes; dump_json writes valid UTF-8.
    std::cout << dump_json({{"schema_version", 1},
                            {"secret_key", written->secret_path},
                            {"public_key", written->public_path},
                            {"key_id", written->key_id},
                            {"trusted_keys_entry", written->public_entry}},
                           2)
              << "\n";
    return kExitOk;
  }
  std::cout << "secret key: " << terminal_safe(written->secret_path)
            << " (mode 0600: store it in the runner's secret store, never in the repository)\n"
            << "public key: " << terminal_safe(written->public_path) << "\n"
            << "key id: " << written->key_id << "\n"
            << "add this entry to the policy's \"trusted_keys\" (optionally with \"expires\": "
               "\"YYYY-MM-DD\"):\n";
  // Line by line: terminal_safe would escape the newlines of the whole.
  std::istringstream entry(written->public_entry.dump(2));
  for (std::string line; std::getline(entry, line);) std::cout << terminal_safe(line) << "\n";
  return kExitOk;
}

}  // namespace

Command add_keygen_command(CLI::App& app) {
  auto args = std::make_shared<KeygenArgs>();
  auto* sub = app.add_subcommand(
      "keygen", "Write an Ed25519 key pair for signing evidence (jetgate run --sign-key)");
  sub->add_option("file", args->file,
                  "The secret key file to create (mode 0600); the public key goes to "
                  "FILE.pub.json")
      ->required();
  sub->add_option("--owner", args->owner,
                  "The runner or person the key belongs to, e.g. jetson-orin-runner-1")
      ->required();
  sub->add_flag("--force", args->force, "Replace FILE and FILE.pub.json when they exist");
  sub->add_flag("--json", args->json,
                "Print {schema_version, secret_key, public_key, key_id, trusted_keys_entry} "
                "(docs/schemas/keygen.schema.json)");
  sub->footer(
      "Exit status: 0 written, 2 unusable input (FILE exists without --force, cannot be "
      "written).\nSee docs/trust.md for storing, rotating and revoking the key.");
  return {sub, [args] { return keygen(*args); }};
}

}  // namespace jetgate::cli
