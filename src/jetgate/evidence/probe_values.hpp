// SPDX-License-Identifier: Apache-2.0
// Every probe's status, duration and measured values in an evidence (or probe)
// document, values converted to their base unit (bytes/s, seconds, bytes, ratio,
// tokens/s, items), and the sync path's wait per scheduling mode. The one reading of
// /probes/*/values: the node_exporter textfile (report/prometheus) and the history
// store (history/) both take their numbers from here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/units.hpp"
#include "jetgate/record/record.hpp"

namespace jetgate::evidence {

// A unit a probe writes ("GB/s", "us", "percent", ...) and its base unit: the
// one table of core/units.hpp. nullptr for a unit jetgate does not convert
// (such a value is left out).
const units::Unit* base_unit_of(std::string_view unit);

struct ProbeValue {
  std::string metric;  // the key under /probes/ID/values
  double value = 0;    // in the base unit, finite
  std::string base;    // the base unit's name
};

struct SyncWait {
  std::string mode;  // "spin", "yield", "blocking_sync"
  // "interrupt_driven", "busy_polling" or "unclear" (the probe writes "interrupt-driven",
  // "busy-polling"; both spellings are read); any other text as written.
  std::string wait;
};

struct ProbeReading {
  std::string id;
  std::string status;  // "PASS", ... as written; "" when absent or not a string
  std::optional<double> duration_seconds;
  std::vector<ProbeValue> values;  // in the document's key order
  std::vector<SyncWait> waits;     // /probes/ID/details/modes, where present
};

// The probes of r, in key order; values without a finite number and a known
// unit are left out.
std::vector<ProbeReading> probe_readings(const record::Record& r);
// The same for a document (read with record::read); entries of /probes that
// are not objects are left out. Never throws.
std::vector<ProbeReading> probe_readings(const nlohmann::json& doc);

}  // namespace jetgate::evidence
