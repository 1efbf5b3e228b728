// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/module_provenance.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>

#include "jetgate/core/identifier.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/container_images.hpp"
#include "jetgate/facts/gpu_stack.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::facts {
namespace {

constexpr std::size_t kMaxModuleBytes = std::size_t{96} * 1024 * 1024;  // nvidia.ko is ~60 MB
constexpr std::size_t kMaxModules = 20000;
// The provenance reader as a whole, not only per file: a root listing 2000 GPU-stack
// modules mapped to 40 MB files kept `probe --root` busy past a minute. At most
// kMaxProvenanceModules entries, and module files are read while kMaxModuleFilesRead
// files and kMaxModuleBytesTotal bytes allow (a driver's GPU stack is about ten modules,
// nvidia.ko the largest at ~60 MB); what is left out is said.
constexpr std::size_t kMaxProvenanceModules = 64;
constexpr std::size_t kMaxModuleFilesRead = 32;
constexpr std::uint64_t kMaxModuleBytesTotal = std::uint64_t{256} * 1024 * 1024;

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string first_names(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 8; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 8) out += fmt::format(" and {} more", names.size() - 8);
  return out;
}
constexpr std::size_t kMaxSymbols = 200000;  // a distribution kernel exports ~30000

// The GPU-stack modules whose provenance is reported (when loaded or expected).
bool is_stack_module(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kNames{
      "nvgpu",    "host1x",         "host1x_fence",   "host1x_nvhost",        "nvhost_ctrl_shim",
      "nvmap",    "mc_utils",       "tegra_drm",      "governor_pod_scaling", "nvhwpm",
      "nvidia",   "nvidia_uvm",     "nvidia_modeset", "nvidia_drm",           "nvidia_peermem",
      "nvsciipc", "nvidia_vrs_pseq"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

std::string normalise_name(std::string_view s) {
  std::string n(s);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

// --- libkmod, loaded at run time (libkmod.so.2: its ABI has been stable since kmod 5) ---
struct KmodApi {
  void* (*ctx_new)(const char*, const char* const*) = nullptr;
  void* (*ctx_unref)(void*) = nullptr;
  int (*module_new_from_path)(void*, const char*, void**) = nullptr;
  void* (*module_unref)(void*) = nullptr;
  int (*get_info)(const void*, void**) = nullptr;
  const char* (*info_key)(const void*) = nullptr;
  const char* (*info_value)(const void*) = nullptr;
  void (*info_free)(void*) = nullptr;
  void* (*list_next)(const void*, const void*) = nullptr;
  std::string error;
};

const KmodApi& kmod() {
  static const KmodApi api = [] {
    KmodApi a;
    void* h = dlopen("libkmod.so.2", RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      a.error = "libkmod.so.2 (kmod's library, package libkmod2) is not installed";
      return a;
    }
    bool ok = true;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      ok = ok && fn != nullptr;
    };
    sym(a.ctx_new, "kmod_new");
    sym(a.ctx_unref, "kmod_unref");
    sym(a.module_new_from_path, "kmod_module_new_from_path");
    sym(a.module_unref, "kmod_module_unref");
    sym(a.get_info, "kmod_module_get_info");
    sym(a.info_key, "kmod_module_info_get_key");
    sym(a.info_value, "kmod_module_info_get_value");
    sym(a.info_free, "kmod_module_info_free_list");
    sym(a.list_next, "kmod_list_next");
    if (!ok) a.error = "libkmod.so.2 lacks the kmod_module_get_info entry points";
    return a;
  }();
  return api;
}

nlohmann::json str_or_null(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  if (it == m.end() || it->second.empty()) return nullptr;
  return fact_text(it->second, 256) ? nlohmann::json(*fact_text(it->second, 256))
                                    : nlohmann::json(nullptr);
}

// The object collect_module_provenance fills lands at /platform/tegra/driver.
keys::Pointer in_driver(const keys::Pointer& key) {
  return keys::relative(key, keys::kTegraDriver);
}

std::string what_taint_means(const ModuleTaint& t) {
  std::vector<std::string> parts;
  if (t.out_of_tree) parts.push_back("out of tree (O)");
  if (t.unsigned_) parts.push_back("unsigned or signed by an unknown key (E)");
  if (t.proprietary) parts.push_back("proprietary licence (P)");
  if (t.forced) parts.push_back("force-loaded (F)");
  if (t.staging) parts.push_back("staging driver (C)");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

std::optional<std::string> module_name_of_path(std::string_view path) {
  auto slash = path.rfind('/');
  auto base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view suffix : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
    if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
      auto stem = base.substr(0, base.size() - suffix.size());
      if (stem.size() > 64 || !std::all_of(stem.begin(), stem.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
          }))
        return std::nullopt;
      return normalise_name(stem);
    }
  }
  return std::nullopt;
}

std::map<std::string, std::string> parse_modules_dep(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    if (out.size() >= kMaxModules) break;
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 512) continue;
    auto path = trim(line.substr(0, colon));
    if (path.empty() || path.front() == '/' || path.find("..") != std::string_view::npos ||
        !is_printable_text(path))
      continue;
    if (auto name = module_name_of_path(path)) out.emplace(*name, std::string(path));
  }
  return out;
}

std::map<std::string, std::string> parse_modules_symbols(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto line : split_lines(text)) {
    if (out.size() >= kMaxSymbols) break;
    constexpr std::string_view kHead = "alias symbol:";
    if (line.substr(0, kHead.size()) != kHead) continue;
    auto rest = line.substr(kHead.size());
    auto space = rest.find(' ');
    if (space == std::string_view::npos || space == 0) continue;
    auto symbol = rest.substr(0, space);
    auto module = trim(rest.substr(space + 1));
    auto ident = [](std::string_view v) {
      return !v.empty() && v.size() <= 128 && std::all_of(v.begin(), v.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
    };
    if (!ident(symbol) || !ident(module)) continue;
    out.emplace(std::string(symbol), normalise_name(module));
  }
  return out;
}

std::vector<std::string> unknown_symbols(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  constexpr std::string_view kUnknown = "Unknown symbol ";
  for (const auto& l : lines) {
    auto at = l.find(kUnknown);
    if (at == std::string::npos) continue;
    auto begin = at + kUnknown.size();
    auto end = begin;
    while (end < l.size() &&
           (std::isalnum(static_cast<unsigned char>(l[end])) || l[end] == '_' || l[end] == '.'))
      ++end;
    if (end == begin || end - begin > 128) continue;
    std::string sym = l.substr(begin, end - begin);
    if (std::find(out.begin(), out.end(), sym) == out.end()) out.push_back(sym);
  }
  return out;
}

Result<ModuleTaint> parse_module_taint(std::string_view text) {
  ModuleTaint t;
  auto v = trim(text);
  if (v.size() > 32) return make_error("more than 32 characters: not a taint flag list");
  for (char c : v) {
    if (c < 'A' || c > 'Z') return make_error("not a taint flag list (letters A-Z)");
    t.flags += c;
    switch (c) {
      case 'O':
        t.out_of_tree = true;
        break;
      case 'E':
        t.unsigned_ = true;
        break;
      case 'P':
        t.proprietary = true;
        break;
      case 'F':
        t.forced = true;
        break;
      case 'C':
        t.staging = true;
        break;
      default:
        t.unknown.emplace_back(1, c);
    }
  }
  return t;
}

std::vector<std::string> module_load_failures(std::string_view log, std::string_view module,
                                              std::size_t max_lines) {
  static constexpr std::array<std::string_view, 8> kReasons{"disagrees about version of symbol",
                                                            "Unknown symbol",
                                                            "Invalid module format",
                                                            "version magic",
                                                            "module verification failed",
                                                            "Key was rejected",
                                                            "exports duplicate symbol",
                                                            "probe with driver"};
  std::string under = normalise_name(module);
  std::string dashed = under;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  std::vector<std::string> out;
  for (auto line : split_lines(log.substr(0, std::size_t{8} << 20))) {
    bool names = false;
    for (const auto& n : {under, dashed}) {
      auto pos = line.find(n + ":");
      if (pos != std::string_view::npos &&
          (pos == 0 || !(std::isalnum(static_cast<unsigned char>(line[pos - 1])) ||
                         line[pos - 1] == '_' || line[pos - 1] == '-')))
        names = true;
    }
    if (!names) continue;
    bool reason = std::any_of(kReasons.begin(), kReasons.end(), [&](std::string_view r) {
      return line.find(r) != std::string_view::npos;
    });
    if (!reason) continue;
    auto text = fact_text(line, 300);
    if (!text) continue;
    out.push_back(*text);
    if (out.size() > max_lines) out.erase(out.begin());
  }
  return out;
}

std::optional<ModuleSignature> module_signature_of(std::string_view bytes) {
  static constexpr std::string_view kMagic = "~Module signature appended~\n";
  constexpr std::size_t kStruct = 12;  // sizeof(struct module_signature)
  if (bytes.size() < kMagic.size() + kStruct) return std::nullopt;
  if (bytes.substr(bytes.size() - kMagic.size()) != kMagic) return std::nullopt;
  const auto* ms =
      reinterpret_cast<const unsigned char*>(bytes.data() + bytes.size() - kMagic.size() - kStruct);
  // algo, hash, id_type, signer_len, key_id_len, __pad[3], sig_len: PKCS#7 (id_type 2)
  // keeps everything in the signature, so the kernel requires the rest zero.
  constexpr unsigned char kPkeyIdPkcs7 = 2;
  if (ms[2] != kPkeyIdPkcs7 || ms[0] != 0 || ms[1] != 0 || ms[3] != 0 || ms[4] != 0 || ms[5] != 0 ||
      ms[6] != 0 || ms[7] != 0)
    return std::nullopt;
  const std::uint32_t sig_len = (std::uint32_t{ms[8]} << 24) | (std::uint32_t{ms[9]} << 16) |
                                (std::uint32_t{ms[10]} << 8) | std::uint32_t{ms[11]};
  const std::size_t trailer = kMagic.size() + kStruct;
  if (sig_len == 0 || sig_len > bytes.size() - trailer) return std::nullopt;
  // DER: a PKCS#7 ContentInfo is a SEQUENCE.
  if (static_cast<unsigned char>(bytes[bytes.size() - trailer - sig_len]) != 0x30)
    return std::nullopt;
  return ModuleSignature{sig_len, bytes.size() - trailer - sig_len};
}

namespace {

// libkmod's own reading of one module file, in this process. Debian's libkmod asserts
// on some malformed ELF files (elf_get_section_header: idx < section count, found by
// fuzz_modinfo) and so aborts the process: read_module_info runs this in a child.
Result<std::map<std::string, std::string>> read_module_info_in_process(std::string_view bytes) {
  const auto& api = kmod();
  if (!api.error.empty()) return make_error(api.error);
  if (bytes.size() > kMaxModuleBytes)
    return make_error(fmt::format("{} bytes ({}), over the {} limit of one module file",
                                  bytes.size(), mib(bytes.size()), mib(kMaxModuleBytes)));
  // libkmod reads files only: the bytes (read under the root, so a recorded
  // machine's symbolic links cannot lead out of it) go to an anonymous file.
  int fd = memfd_create("jetgate-module", MFD_CLOEXEC);
  if (fd < 0) return make_error("memfd_create failed");
  std::size_t done = 0;
  while (done < bytes.size()) {
    auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      ::close(fd);
      return make_error("cannot write the module to a memory file");
    }
    done += static_cast<std::size_t>(n);
  }
  const char* const no_config[] = {nullptr};
  void* ctx = api.ctx_new("/nonexistent-jetgate", no_config);
  if (ctx == nullptr) {
    ::close(fd);
    return make_error("kmod_new failed");
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void* mod = nullptr;
  std::map<std::string, std::string> info;
  std::string error;
  if (api.module_new_from_path(ctx, path.c_str(), &mod) < 0 || mod == nullptr) {
    error = "libkmod cannot open it as a module";
  } else {
    void* list = nullptr;
    int n = api.get_info(mod, &list);
    if (n < 0) {
      error = "no .modinfo section (not a kernel module, or a compression libkmod lacks)";
    } else {
      for (const void* e = list; e != nullptr; e = api.list_next(list, e)) {
        const char* k = api.info_key(e);
        const char* v = api.info_value(e);
        if (k == nullptr) continue;
        std::string key(k), value(v != nullptr ? v : "");
        if (key.size() > 64 || value.size() > 4096) continue;
        auto it = info.find(key);
        // libkmod lists the .modinfo keys, then what it read from the appended
        // signature: for those the signature's own value is the last one.
        const bool from_signature =
            key == "signer" || key == "sig_key" || key == "sig_hashalgo" || key == "sig_id";
        if (it == info.end())
          info.emplace(key, value);
        else if (from_signature)
          it->second = value;
        else if (key == "depends" || key == "alias")
          it->second += "," + value;
      }
      api.info_free(list);
    }
    api.module_unref(mod);
  }
  api.ctx_unref(ctx);
  ::close(fd);
  if (!error.empty()) return make_error(error);
  return info;
}

}  // namespace

Result<std::map<std::string, std::string>> read_module_info(std::string_view bytes) {
  // libkmod is loaded once, here; a file refused by size never needs a child.
  if (const auto& api = kmod(); !api.error.empty()) return make_error(api.error);
  if (bytes.size() > kMaxModuleBytes) return read_module_info_in_process(bytes);
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(10);
  limits.max_output_bytes = 1u << 20;
  const proc::ChildOutcome out = proc::run_in_child(
      [&] {
        auto info = read_module_info_in_process(bytes);
        nlohmann::json j;
        if (info)
          j["info"] = *info;
        else
          j["error"] = info.error().message();
        return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      },
      limits);
  if (out.kind != proc::ChildOutcome::Kind::exited || out.exit_code != 0)
    return make_error("libkmod did not finish reading it (" + out.describe() +
                      "): a malformed module file");
  auto j = nlohmann::json::parse(out.output, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return make_error("libkmod's reading of it came back unreadable");
  if (const auto e = j.find("error"); e != j.end() && e->is_string())
    return make_error(e->get<std::string>());
  std::map<std::string, std::string> info;
  if (const auto i = j.find("info"); i != j.end() && i->is_object())
    for (const auto& [k, v] : i->items())
      if (v.is_string()) info.emplace(k, v.get<std::string>());
  return info;
}

void collect_module_provenance(CollectContext& ctx, const nlohmann::json& platform,
                               nlohmann::json& driver) {
  auto& provenance = driver[in_driver(keys::kTegraDriverProvenance)] = nlohmann::json::array();
  auto& expected = driver[in_driver(keys::kTegraDriverExpectedModules)] = nlohmann::json::array();
  std::optional<std::string> release;
  if (const auto* kr = keys::find(platform, in_platform(keys::kKernelRelease));
      kr && kr->is_string())
    release = fact_text(kr->get<std::string>(), 128);
  if (release && release->find('/') != std::string::npos) release.reset();

  std::vector<std::string> loaded;
  const auto* modules = keys::find(driver, in_driver(keys::kTegraDriverModules));
  for (const auto& m : modules ? *modules : nlohmann::json::array())
    if (m.contains("name") && m["name"].is_string()) loaded.push_back(m["name"].get<std::string>());

  // Merged /usr (Debian 12, Ubuntu 24.04, the L4T 36 rootfs): /lib is a link to usr/lib,
  // and a host mount or recording of only /usr/lib/modules has them there
  // (fs/host_root accepts either).
  std::string moddir = release ? "/lib/modules/" + *release : "";
  if (release && !ctx.root().exists(moddir) && ctx.root().exists("/usr/lib/modules/" + *release))
    moddir = "/usr/lib/modules/" + *release;
  std::map<std::string, std::string> dep, builtin;
  if (release) {
    if (auto t = ctx.read(moddir + "/modules.dep", keys::kTegraDriverProvenance, 8u << 20))
      dep = parse_modules_dep(*t);
    if (auto t = ctx.read(moddir + "/modules.builtin", keys::kTegraDriverProvenance, 4u << 20))
      for (auto line : split_lines(*t))
        if (auto n = module_name_of_path(trim(line))) builtin.emplace(*n, std::string(trim(line)));
  }
  std::optional<std::string> log;
  // A recorded machine carries the recorder's excerpt of dmesg; the live one its
  // syslog (readable by the adm group on Ubuntu; dmesg itself may be restricted).
  const char* log_path = ctx.facts_live() ? "/var/log/kern.log" : "/jetgate-kernel-log.txt";
  if (ctx.root().exists(log_path))
    log = ctx.read(log_path, keys::kTegraDriverExpectedModules, 8u << 20);

  // The modules this SoC and stack should load: the data/gpu-stack.json row for
  // this SoC and L4T release; without a release (mainline, OE4T, Talos), the
  // row's modules the kernel has installed, and those CUDA needs that it lacks.
  std::vector<std::string> names = loaded;
  auto soc = keys::string_at(platform, in_platform(keys::kSoc));
  std::vector<std::string> installed;
  for (const auto& [n, path] : dep) installed.push_back(n);
  for (const auto& [n, path] : builtin) installed.push_back(n);
  const GpuStack* stack = select_gpu_stack(platform, installed);
  driver[in_driver(keys::kTegraDriverStack)] = stack ? stack_json(*stack) : nlohmann::json(nullptr);
  std::map<std::string, std::string> symbols;
  bool symbols_read = false;
  auto symbol_owner = [&](const std::string& sym) -> std::optional<std::string> {
    if (!symbols_read && release) {
      symbols_read = true;
      if (auto t =
              ctx.read(moddir + "/modules.symbols", keys::kTegraDriverExpectedModules, 16u << 20))
        symbols = parse_modules_symbols(*t);
    }
    auto it = symbols.find(sym);
    if (it == symbols.end()) return std::nullopt;
    return it->second;
  };
  const bool by_installed = stack && !stack->l4t_low && !dep.empty();
  for (const auto& e : stack ? stack->modules : std::vector<StackModule>{}) {
    const std::string& name = e.name;
    bool is_loaded = std::find(loaded.begin(), loaded.end(), name) != loaded.end();
    bool is_builtin = builtin.count(name) > 0;
    bool is_installed = is_builtin || dep.count(name) > 0;
    if (by_installed && !is_installed && !is_loaded && !e.cuda) continue;
    nlohmann::json j = {{"name", name},
                        {"needed_for_cuda", e.cuda},
                        {"provides", e.provides},
                        {"loaded", is_loaded},
                        {"built_in", is_builtin},
                        {"installed", release && !dep.empty() ? nlohmann::json(is_installed)
                                                              : nlohmann::json(nullptr)},
                        {"file", dep.count(name) ? nlohmann::json(moddir + "/" + dep[name])
                                                 : nlohmann::json(nullptr)},
                        {"kernel_log", nullptr},
                        {"missing_symbols", nlohmann::json::array()},
                        {"source", stack->source}};
    if (!is_loaded && !is_builtin) {
      if (log) j["kernel_log"] = module_load_failures(*log, name);
      std::string reason;
      if (log && !j["kernel_log"].empty())
        reason = "; the kernel log says: " + j["kernel_log"].back().get<std::string>();
      else if (!log)
        reason = "; no kernel log was readable (/var/log/kern.log; `dmesg | grep " + name +
                 "` shows why)";
      // "Unknown symbol X": the installed module that exports X is the missing one.
      std::string traced;
      if (j["kernel_log"].is_array())
        for (const auto& sym : unknown_symbols(j["kernel_log"].get<std::vector<std::string>>())) {
          auto owner = symbol_owner(sym);
          bool owner_loaded =
              owner && std::find(loaded.begin(), loaded.end(), *owner) != loaded.end();
          j["missing_symbols"].push_back(
              {{"symbol", sym},
               {"exported_by", owner ? nlohmann::json(*owner) : nlohmann::json(nullptr)},
               {"exporter_loaded",
                owner ? nlohmann::json(owner_loaded) : nlohmann::json(nullptr)}});
          if (!owner)
            traced += "; no installed module exports " + sym + " (" +
                      ctx.root().display(moddir + "/modules.symbols") +
                      "): the module that provides it is not installed";
          else if (!owner_loaded)
            traced += "; " + sym + " is exported by " + *owner +
                      ", which is not loaded: that is the missing module (`modprobe " + *owner +
                      "` before " + name + ")";
          else
            traced += "; " + sym + " is exported by " + *owner +
                      ", which is loaded, so it was built from other sources than " + name +
                      " was: rebuild both from one source tree";
        }
      std::string what = by_installed && !is_installed
                             ? " is not installed under " + ctx.root().display(moddir) +
                                   " (modules.dep, modules.builtin)"
                             : " is not loaded";
      ctx.warn(keys::kTegraDriverExpectedModules, name,
               std::string("module ") + name + " (" + e.provides + ") is expected on " + soc +
                   " with " + stack->name + " but" + what + (e.cuda ? ", and CUDA needs it" : "") +
                   reason + traced);
    }
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    expected.push_back(j);
  }

  std::size_t files_read = 0;
  std::uint64_t bytes_read = 0;
  std::vector<std::string> not_listed, not_read;
  for (const auto& name : names) {
    if (!is_stack_module(name) && name.rfind("nvgpu", 0) != 0 && name.rfind("nvidia", 0) != 0 &&
        name.rfind("host1x", 0) != 0)
      continue;
    if (provenance.size() >= kMaxProvenanceModules) {
      not_listed.push_back(name);
      continue;
    }
    nlohmann::json p = {{"name", name},
                        {"loaded", std::find(loaded.begin(), loaded.end(), name) != loaded.end()},
                        {"file", nullptr},
                        {"version", nullptr},
                        {"srcversion", nullptr},
                        {"vermagic", nullptr},
                        {"in_tree", nullptr},
                        {"license", nullptr},
                        {"signed", nullptr},
                        {"signer", nullptr},
                        {"sig_key", nullptr},
                        {"sig_hashalgo", nullptr},
                        {"loaded_srcversion", nullptr},
                        {"matches_loaded", nullptr},
                        {"taint", nullptr},
                        {"taint_meaning", nullptr},
                        {"vermagic_matches_kernel", nullptr},
                        {"error", nullptr}};
    std::string sys = "/sys/module/" + name;
    if (auto t = ctx.read(sys + "/taint", keys::kTegraDriverProvenance, 4096)) {
      auto taint = parse_module_taint(*t);
      if (taint) {
        p["taint"] = taint->flags;
        p["taint_meaning"] = what_taint_means(*taint);
      }
    }
    if (auto t = ctx.read(sys + "/srcversion", keys::kTegraDriverProvenance, 4096))
      p["loaded_srcversion"] = json_or_null(fact_text(*t, 64));
    if (p["version"].is_null())
      if (auto t = ctx.read(sys + "/version", keys::kTegraDriverProvenance, 4096))
        p["version"] = json_or_null(fact_text(*t, 128));
    if (builtin.count(name)) {
      p["in_tree"] = true;
      p["file"] = "built-in (" + moddir + "/modules.builtin)";
    } else if (auto it = dep.find(name); it != dep.end()) {
      std::string path = moddir + "/" + it->second;
      p["file"] = path;
      const fs::NodeInfo st = ctx.root().stat(path);
      const auto size = static_cast<std::uint64_t>(std::max<std::int64_t>(st.size, 0));
      std::optional<Result<std::string>> bytes;
      if (st.type == fs::NodeType::regular && size > kMaxModuleBytes) {
        p["error"] = fmt::format(
            "{} is {} bytes ({}), over the {} limit of one module file; "
            "not read",
            ctx.root().display(path), size, mib(size), mib(kMaxModuleBytes));
      } else if (files_read >= kMaxModuleFilesRead || bytes_read + size > kMaxModuleBytesTotal) {
        p["error"] = fmt::format(
            "not read: the module files read before it reached this probe's limit for all "
            "of them ({} files, {} in all)",
            kMaxModuleFilesRead, mib(kMaxModuleBytesTotal));
        not_read.push_back(name);
      } else {
        ++files_read;
        bytes_read += size;
        bytes = ctx.root().read(path, kMaxModuleBytes);
        if (!*bytes)
          p["error"] =
              "cannot read " + ctx.root().display(path) + ": " + (*bytes).error().message();
      }
      if (bytes && *bytes) {
        bytes_read += (**bytes).size() > size ? (**bytes).size() - size : 0;
        auto info = read_module_info(**bytes);
        if (!info) {
          p["error"] = info.error().message();
        } else {
          for (auto key : {"version", "srcversion", "vermagic", "license"})
            if (auto v = str_or_null(*info, key); !v.is_null()) p[key] = v;
          p["in_tree"] = info->count("intree") > 0 && info->at("intree") == "Y";
          // Signed is what the file's trailer shows, never a .modinfo text: a module
          // whose .modinfo says signer=NVIDIA Corporation without a signature is unsigned.
          // A compressed file (.ko.xz, .ko.zst, .ko.gz) was signed before it was
          // compressed: its trailer is inside the stream, and libkmod's reading of it
          // (sig_id, from the signature, not .modinfo) is what shows it.
          const bool compressed = path.size() > 3 && (path.rfind(".xz") == path.size() - 3 ||
                                                      path.rfind(".gz") == path.size() - 3 ||
                                                      path.rfind(".zst") == path.size() - 4);
          const bool has_signature =
              compressed ? info->count("sig_id") > 0 : module_signature_of(**bytes).has_value();
          p["signed"] = has_signature;
          if (has_signature) {
            for (auto key : {"signer", "sig_key", "sig_hashalgo"})
              if (auto v = str_or_null(*info, key); !v.is_null()) p[key] = v;
          } else if (auto claimed = str_or_null(*info, "signer"); !claimed.is_null()) {
            ctx.warn(keys::kTegraDriverProvenance, ctx.root().display(path),
                     "module " + name +
                         " has no signature appended, though its .modinfo says "
                         "signer=" +
                         claimed.get<std::string>() + ": it is unsigned, whatever that text says");
          }
          if (p["vermagic"].is_string() && release)
            p["vermagic_matches_kernel"] =
                first_field_is(p["vermagic"].get<std::string>(), *release);
          if (p["srcversion"].is_string() && p["loaded_srcversion"].is_string())
            p["matches_loaded"] = p["srcversion"] == p["loaded_srcversion"];
        }
      }
    } else if (release) {
      p["error"] = dep.empty() ? "no module list: " + ctx.root().display(moddir + "/modules.dep") +
                                     " is missing or empty"
                               : "not in " + ctx.root().display(moddir + "/modules.dep");
    }
    provenance.push_back(p);
  }
  if (!not_listed.empty())
    ctx.warn(keys::kTegraDriverProvenance, "module provenance",
             fmt::format("{} GPU-stack modules are listed; provenance is kept for the first {} "
                         "only, and {} were not looked at: {}",
                         provenance.size() + not_listed.size(), kMaxProvenanceModules,
                         not_listed.size(), first_names(not_listed)));
  if (!not_read.empty())
    ctx.warn(keys::kTegraDriverProvenance, "module provenance",
             fmt::format("{} module files were not read, as {} files ({}) is the most one probe "
                         "reads: {}; their version, vermagic and signature are unknown",
                         not_read.size(), kMaxModuleFilesRead, mib(kMaxModuleBytesTotal),
                         first_names(not_read)));
}

}  // namespace jetgate::facts
