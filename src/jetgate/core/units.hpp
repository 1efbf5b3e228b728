// SPDX-License-Identifier: Apache-2.0
// Units as a type, with one table: every unit a probe writes ("GB/s", "us",
// "percent", ...), the base unit it converts to (what the node_exporter
// textfile, the history store and the Prometheus rules hold), and how each
// base unit is shown: the textfile family's help, the unit people read in the
// history tables and the fleet report, Grafana's unit id. Readers take their
// unit words from here, never from a table of their own (Units.*).
#pragma once

#include <optional>
#include <string_view>

namespace jetgate::units {

enum class Base { bytes_per_second, seconds, bytes, ratio, tokens_per_second, items };

struct BaseInfo {
  Base base;
  std::string_view name;          // "bytes_per_second": the textfile family's suffix
  std::string_view help;          // the textfile family's HELP line
  double people_scale;            // a value in the base unit / people_scale = what people read
  std::string_view people_unit;   // "GB/s", "µs", "%", "" (a count)
  std::string_view grafana_unit;  // grafana/packages/grafana-data/src/valueFormats/categories.ts
};

struct Unit {
  std::string_view written;  // as a probe writes it: "GB/s", "us", "ms", "bytes", ...
  Base base;
  double factor;  // value * factor = value in the base unit
};

// The unit a probe writes, or nullptr for one jetgate does not convert.
const Unit* unit_of(std::string_view written);
// The row of a base unit.
const BaseInfo& info(Base base);
// The base unit of that name ("bytes_per_second"), or nullptr.
const BaseInfo* base_named(std::string_view name);

}  // namespace jetgate::units
