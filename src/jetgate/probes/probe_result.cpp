// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

std::vector<std::string> unmet_probes(const std::vector<ProbeResult>& results,
                                      const std::vector<std::string>& requested) {
  std::vector<std::string> out;
  for (const auto& id : requested) {
    const ProbeResult* found = nullptr;
    for (const auto& r : results)
      if (r.id == id) found = &r;
    if (!found) {
      out.push_back(id + ": no result (the probe did not run)");
    } else if (!probe_holds(found->status)) {
      out.push_back(id + ": " + to_string(found->status) +
                    (found->reason.empty() ? "" : ": " + found->reason));
    }
  }
  return out;
}

nlohmann::json to_json(const ProbeResult& r) {
  nlohmann::json values = nlohmann::json::object();
  for (const auto& [k, m] : r.values) values[k] = {{"value", m.value}, {"unit", m.unit}};
  nlohmann::json j = {{"id", r.id},           {"status", to_string(r.status)},
                      {"reason", r.reason},   {"values", values},
                      {"details", r.details}, {"duration_ms", r.duration_ms}};
  if (!r.next.empty()) j["next"] = r.next;
  return j;
}

std::optional<ProbeResult> probe_result_from_json(const nlohmann::json& j, std::string* err) {
  auto fail = [&](std::string m) -> std::optional<ProbeResult> {
    if (err) *err = std::move(m);
    return std::nullopt;
  };
  if (!j.is_object()) return fail("probe result is not a JSON object");
  ProbeResult r;
  if (!j.contains("id") || !j["id"].is_string()) return fail("probe result has no string \"id\"");
  r.id = j["id"].get<std::string>();
  if (!j.contains("status") || !j["status"].is_string())
    return fail("probe " + r.id + " has no string \"status\"");
  auto st = status_from_string(j["status"].get<std::string>());
  if (!st) return fail("probe " + r.id + " has unknown status " + j["status"].dump());
  r.status = *st;
  if (j.contains("reason") && j["reason"].is_string()) r.reason = j["reason"].get<std::string>();
  if (j.contains("next") && j["next"].is_string()) r.next = j["next"].get<std::string>();
  if (j.contains("values") && j["values"].is_object()) {
    for (const auto& [k, v] : j["values"].items()) {
      if (!v.is_object() || !v.contains("value") || !v["value"].is_number())
        return fail("probe " + r.id + " value " + k + " is not {\"value\": number, \"unit\": ...}");
      Measurement m;
      m.value = v["value"].get<double>();
      if (v.contains("unit") && v["unit"].is_string()) m.unit = v["unit"].get<std::string>();
      r.values[k] = m;
    }
  }
  if (j.contains("details")) r.details = j["details"];
  if (j.contains("duration_ms") && j["duration_ms"].is_number())
    r.duration_ms = j["duration_ms"].get<double>();
  return r;
}

}  // namespace jetgate::probes
