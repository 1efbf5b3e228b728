// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/power.hpp"

#include <charconv>
#include <cmath>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/pattern.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

std::optional<int> watts_in(const std::string& name) {
  static const Pattern watts(R"((\d{1,4})W)");
  auto m = watts.search(name);
  if (!m) return std::nullopt;
  return std::stoi(m->str(1));
}

std::optional<int> cores_in(const std::string& name) {
  static const Pattern cores(R"((\d{1,3})CORE)");
  auto m = cores.search(name);
  if (!m) return std::nullopt;
  return std::stoi(m->str(1));
}

// A documented key inside the /platform object power_advice reads.
const nlohmann::json* value_at(const nlohmann::json& platform, const keys::Pointer& key) {
  return keys::find(platform, keys::relative(key, keys::kPlatform));
}

std::optional<std::int64_t> hz_at(const nlohmann::json& platform, const keys::Pointer& key) {
  const auto* v = value_at(platform, key);
  if (!v || !v->is_number_integer()) return std::nullopt;
  return v->get<std::int64_t>();
}

long mhz(std::int64_t hz) {
  return std::lround(static_cast<double>(hz) / 1e6);
}

// "EMC at 2133 of 3199 MHz" when the clock runs below its ceiling.
std::optional<std::string> clock_below_max(const nlohmann::json& p, const char* name,
                                           const keys::Pointer& cur_key,
                                           std::initializer_list<const keys::Pointer*> max_keys) {
  auto cur = hz_at(p, cur_key);
  std::optional<std::int64_t> max;
  for (const auto* key : max_keys)
    if (auto v = hz_at(p, *key); v && (!max || *v > *max)) max = v;
  if (!cur || !max || *cur <= 0 || mhz(*cur) >= mhz(*max)) return std::nullopt;
  return std::string(name) + " at " + std::to_string(mhz(*cur)) + " of " +
         std::to_string(mhz(*max)) + " MHz";
}

}  // namespace

const NvpmodelMode* NvpmodelConfig::find(int id) const {
  for (const auto& m : modes)
    if (m.id == id) return &m;
  return nullptr;
}

const NvpmodelMode* NvpmodelConfig::fastest() const {
  const NvpmodelMode* best = nullptr;
  for (const auto& m : modes)
    if (starts_with_icase(m.name, "MAXN")) {
      // MAXN_SUPER (Orin Nano Super) outruns a plain MAXN where both exist.
      if (!best || m.name.size() > best->name.size()) best = &m;
    }
  if (best) return best;
  // Xavier NX names modes MODE_15W_6CORE, MODE_20W_2CORE...: the most watts,
  // then the most CPU cores.
  std::optional<std::pair<int, int>> most;
  for (const auto& m : modes)
    if (auto w = watts_in(m.name)) {
      std::pair<int, int> key{*w, cores_in(m.name).value_or(0)};
      if (!most || key > *most) {
        most = key;
        best = &m;
      }
    }
  return best;
}

NvpmodelConfig parse_nvpmodel_conf(std::string_view text) {
  // [[:space:]] and not RE2's \s: a vertical tab is space too (core/pattern.hpp).
  static const Pattern model(
      R"(<[[:space:]]*POWER_MODEL[[:space:]]+ID[[:space:]]*=[[:space:]]*(\d{1,3})[[:space:]]+)"
      R"(NAME[[:space:]]*=[[:space:]]*([A-Za-z0-9_.+-]{1,64})[[:space:]]*>)");
  static const Pattern config(
      R"(<[[:space:]]*PM_CONFIG[[:space:]]+DEFAULT[[:space:]]*=[[:space:]]*(\d{1,3})[[:space:]]*>)");
  NvpmodelConfig c;
  for (auto raw : split_lines(text)) {
    auto line = trim(raw);
    if (line.empty() || line.front() != '<' || line.size() > 256) continue;
    if (auto m = model.full_match(line)) {
      int id = std::stoi(m->str(1));
      if (!c.find(id)) c.modes.push_back({id, m->str(2)});
    } else if (auto d = config.full_match(line)) {
      c.default_id = std::stoi(d->str(1));
    }
  }
  return c;
}

std::optional<int> parse_nvpmodel_status(std::string_view text) {
  static const Pattern pmode(R"((?:^|[[:space:]])pmode:(\d{1,4})(?:[[:space:]]|$))");
  auto m = pmode.search(trim(text.substr(0, 256)));
  if (!m) return std::nullopt;
  return std::stoi(m->str(1));
}

std::optional<std::int64_t> parse_sysfs_integer(std::string_view text) {
  auto t = trim(text);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size() || v < 0) return std::nullopt;
  return v;
}

std::optional<std::int64_t> highest_frequency(std::string_view text) {
  std::optional<std::int64_t> best;
  std::size_t pos = 0;
  auto t = trim(text.substr(0, 16384));
  while (pos < t.size()) {
    auto space = t.find_first_of(" \t\n", pos);
    auto token =
        t.substr(pos, space == std::string_view::npos ? std::string_view::npos : space - pos);
    if (auto v = parse_sysfs_integer(token); v && (!best || *v > *best)) best = v;
    if (space == std::string_view::npos) break;
    pos = space + 1;
  }
  return best;
}

std::optional<std::string> power_advice(const nlohmann::json& platform) {
  const auto* tegra = value_at(platform, keys::kIsTegra);
  if (!tegra || !tegra->is_boolean() || !tegra->get<bool>()) return std::nullopt;
  std::vector<std::string> findings;
  std::optional<std::string> command;

  const auto* id = value_at(platform, keys::kPowerNvpmodelModeId);
  const auto* name = value_at(platform, keys::kPowerNvpmodelModeName);
  const auto* fastest = value_at(platform, keys::kPowerNvpmodelFastestModeId);
  if (id && id->is_number_integer() && fastest && fastest->is_number_integer() &&
      id->get<int>() != fastest->get<int>()) {
    std::string shown = name && name->is_string() ? name->get<std::string>()
                                                  : "id " + std::to_string(id->get<int>());
    findings.push_back("power mode " + shown);
    command = "sudo nvpmodel -m " + std::to_string(fastest->get<int>()) + " && sudo jetson_clocks";
  }
  if (auto emc = clock_below_max(platform, "EMC", keys::kPowerEmcCurHz, {&keys::kPowerEmcMaxHz}))
    findings.push_back(*emc);
  if (auto gpu = clock_below_max(platform, "GPU", keys::kPowerGpuCurHz,
                                 {&keys::kPowerGpuMaxHz, &keys::kPowerGpuAvailableMaxHz}))
    findings.push_back(*gpu);
  const auto* clocks = value_at(platform, keys::kPowerJetsonClocksInEffect);
  bool clocks_off = clocks && clocks->is_boolean() && !clocks->get<bool>();
  if (findings.empty() && !clocks_off) return std::nullopt;
  if (findings.empty()) findings.push_back("jetson_clocks not in effect");
  if (!command) command = "sudo jetson_clocks";
  std::string sentence;
  for (const auto& f : findings) sentence += (sentence.empty() ? "" : ", ") + f;
  return sentence + ": run `" + *command + "`";
}

}  // namespace jetgate::facts
