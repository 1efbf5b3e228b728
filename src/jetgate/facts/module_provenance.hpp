// SPDX-License-Identifier: Apache-2.0
// Where each GPU-stack kernel module came from: the .modinfo section of its
// file under /lib/modules/RELEASE (version, srcversion, vermagic, intree), the
// signature trailer (signer), the taint flags the kernel gave it
// (/sys/module/NAME/taint), and the modules this SoC and stack should have
// loaded but has not, with the kernel's reason where its log is readable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

class CollectContext;

// modules.dep: "kernel/drivers/gpu/host1x/host1x.ko: kernel/...", one module a
// line. Module name (basename without .ko and a compression suffix, '-' as
// '_', as the kernel names it) -> path relative to /lib/modules/RELEASE.
// Malformed lines are skipped; at most 20000 modules.
std::map<std::string, std::string> parse_modules_dep(std::string_view text);

// The module name a file path stands for: "updates/drivers/gpu/nvgpu/nvgpu.ko"
// -> "nvgpu", "host1x-fence.ko.zst" -> "host1x_fence"; nullopt when not a .ko.
std::optional<std::string> module_name_of_path(std::string_view path);

// modules.symbols: "alias symbol:host1x_job_alloc host1x", one a line. Symbol ->
// the module that exports it ('-' as '_'). Malformed lines are skipped; at most
// 200000 symbols.
std::map<std::string, std::string> parse_modules_symbols(std::string_view text);

// The X of every "Unknown symbol X" in these kernel log lines, once each.
std::vector<std::string> unknown_symbols(const std::vector<std::string>& lines);

// /sys/module/NAME/taint: the kernel's taint letters for one module.
struct ModuleTaint {
  std::string flags;                 // "OE"; "" for none
  bool out_of_tree = false;          // O: built outside the kernel tree
  bool unsigned_ = false;            // E: loaded without a valid signature
  bool proprietary = false;          // P: a licence other than GPL-compatible
  bool forced = false;               // F: loaded with modprobe --force
  bool staging = false;              // C: from drivers/staging
  std::vector<std::string> unknown;  // letters jetgate does not know
};
// An Error when the text holds anything but taint letters (A-Z) and a newline.
Result<ModuleTaint> parse_module_taint(std::string_view text);

// Kernel log lines that say why a module did not load ("tegra_drm: disagrees
// about version of symbol host1x_...", "Unknown symbol", "Invalid module
// format", "version magic", "module verification failed"), newest last, at
// most max_lines. module is the kernel's name ("tegra_drm"); the log may spell
// it with dashes.
std::vector<std::string> module_load_failures(std::string_view log, std::string_view module,
                                              std::size_t max_lines = 5);

// The signature appended to a module file as the kernel's scripts/sign-file.c writes it
// and module_signature.h describes it: the PKCS#7 signature, struct module_signature
// {algo, hash, id_type, signer_len, key_id_len, pad[3], sig_len (big-endian)}, then the
// magic "~Module signature appended~\n". nullopt unless the trailer is there and well
// formed as the kernel's mod_check_sig() requires (id_type PKEY_ID_PKCS7, the legacy
// fields zero, sig_len within the file). Whether the kernel's keys verify the signature
// is not checked here.
struct ModuleSignature {
  std::uint32_t sig_len = 0;     // bytes of the PKCS#7 signature
  std::size_t signed_bytes = 0;  // the module's bytes before the signature
};
std::optional<ModuleSignature> module_signature_of(std::string_view bytes);

// The .modinfo keys of a module file and its signature, read by libkmod
// (loaded at run time: libkmod.so.2, the library modinfo and modprobe use).
// bytes is the whole file as read under the root (compressed or not). An
// Error says what failed: libkmod missing, not a module, too large.
Result<std::map<std::string, std::string>> read_module_info(std::string_view bytes);

// Adds /platform/tegra/driver/provenance, /platform/tegra/driver/stack (the
// data/gpu-stack.json row that applies) and /platform/tegra/driver/expected_modules.
// platform holds /kernel/release and /tegra (soc, l4t) already; modules is the
// list collect_gpu_stack built from /proc/modules.
void collect_module_provenance(CollectContext& ctx, const nlohmann::json& platform,
                               nlohmann::json& driver);

}  // namespace jetgate::facts
