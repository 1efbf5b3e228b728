// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/jetpack_table.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

#include "jetgate/core/embedded.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

const std::vector<std::string_view> kKinds{"ga", "point", "respin", "dp", "ea", "pre", "bsp"};

bool known_kind(std::string_view k) {
  for (auto known : kKinds)
    if (known == k) return true;
  return false;
}

Result<JetpackRelease> parse_row(const nlohmann::json& row, std::size_t index) {
  const std::string where = "releases[" + std::to_string(index) + "]";
  if (!row.is_array() || row.size() != 4 || !row[0].is_string() || !row[1].is_array() ||
      !row[2].is_string() || !row[3].is_string())
    return make_error("expected [l4t, [jetpack...], kind, source]", where);
  JetpackRelease r;
  r.l4t = row[0].get<std::string>();
  r.kind = row[2].get<std::string>();
  r.source = row[3].get<std::string>();
  if (!is_numeric_version(r.l4t, 3)) return make_error("L4T \"" + r.l4t + "\" is not X.Y.Z", where);
  if (!known_kind(r.kind)) return make_error("unknown kind \"" + r.kind + "\"", where);
  if (r.source.empty()) return make_error("no source", where);
  for (const auto& j : row[1]) {
    if (!j.is_string()) return make_error("JetPack values must be strings", where);
    auto value = j.get<std::string>();
    auto number = jetpack_number(value);
    if (!is_numeric_version(number, 2) && !is_numeric_version(number, 3))
      return make_error("JetPack \"" + value + "\" does not start with a version", where);
    r.jetpack.push_back(std::move(value));
  }
  if ((r.kind == "bsp") != r.jetpack.empty())
    return make_error("kind bsp and an empty JetPack list go together", where);
  return r;
}

}  // namespace

std::string JetpackRelease::display() const {
  std::string out;
  for (const auto& j : jetpack) out += (out.empty() ? "" : " | ") + j;
  return out;
}

std::string jetpack_number(std::string_view value) {
  auto t = trim(value);
  std::size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) || t[end] == '.'))
    ++end;
  return std::string(t.substr(0, end));
}

std::string jetpack_marker(std::string_view value) {
  auto t = trim(value);
  auto rest = t.substr(jetpack_number(t).size());
  std::string marker;
  for (char c : rest)
    if (std::isalnum(static_cast<unsigned char>(c)))
      marker += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return marker == "GA" ? "" : marker;
}

Result<JetpackTable> JetpackTable::parse(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("releases") ||
      !doc["releases"].is_array())
    return make_error("not a JSON object with a \"releases\" list", "data/l4t-jetpack.json");
  JetpackTable table;
  for (std::size_t i = 0; i < doc["releases"].size(); ++i) {
    auto row = parse_row(doc["releases"][i], i);
    if (!row.ok()) return row.error();
    if (table.find(row->l4t))
      return make_error("L4T " + row->l4t + " is listed twice", "data/l4t-jetpack.json");
    if (table.newest_.empty() || compare_versions(row->l4t, table.newest_) > 0)
      table.newest_ = row->l4t;
    table.releases_.push_back(std::move(row).value());
  }
  if (table.releases_.empty()) return make_error("no releases", "data/l4t-jetpack.json");
  return table;
}

const JetpackRelease* JetpackTable::find(std::string_view l4t) const {
  for (const auto& r : releases_)
    if (r.l4t == l4t) return &r;
  return nullptr;
}

const Result<JetpackTable>& builtin_jetpack_table() {
  static const Result<JetpackTable> table = [] {
    auto text = embedded_file("l4t-jetpack.json");
    if (!text) return Result<JetpackTable>(make_error("not embedded", "data/l4t-jetpack.json"));
    return JetpackTable::parse(*text);
  }();
  return table;
}

}  // namespace jetgate::facts
