// SPDX-License-Identifier: Apache-2.0
// core/units: one table of units. Every unit a registered metric is written in
// converts to a base unit; every base unit has one row that every reader
// (the textfile's help, the history tables, Grafana) takes its words from; and
// which metrics a fleet watches is the registry's own entry.
#include "jetgate/core/units.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/probes/registry.hpp"
#include "jetgate/probes/watched.hpp"
#include "jetgate/report/history_text.hpp"

namespace jetgate {
namespace {

TEST(Units, EveryBaseHasOneRow) {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(units::Base::items); ++i) {
    const auto base = static_cast<units::Base>(i);
    const auto& row = units::info(base);
    EXPECT_EQ(row.base, base);
    EXPECT_TRUE(names.insert(std::string(row.name)).second) << row.name;
    EXPECT_EQ(units::base_named(row.name), &row);
    EXPECT_FALSE(row.help.empty()) << row.name;
    EXPECT_GT(row.people_scale, 0) << row.name;
    // The history tables read the same row.
    const auto people = report::people_unit_of(std::string(row.name));
    EXPECT_EQ(people.scale, row.people_scale) << row.name;
    EXPECT_EQ(people.unit, row.people_unit) << row.name;
  }
  EXPECT_EQ(units::base_named("furlongs"), nullptr);
  EXPECT_EQ(report::people_unit_of("furlongs").unit, "furlongs") << "shown as written";
}

TEST(Units, EveryRegisteredMetricsUnitConverts) {
  for (const auto& p : probes::probe_registry())
    for (const auto& m : p.metrics) {
      const auto* u = units::unit_of(m.unit);
      ASSERT_NE(u, nullptr) << p.id << "." << m.name << " is written in " << m.unit
                            << ", which core/units.hpp does not convert";
      EXPECT_EQ(evidence::base_unit_of(m.unit), u);
    }
  EXPECT_EQ(units::unit_of("GB/s")->factor, 1e9);
  EXPECT_EQ(units::info(units::unit_of("percent")->base).name, "ratio");
  EXPECT_EQ(units::unit_of("gb/s"), nullptr) << "a unit is matched whole, as written";
}

TEST(Units, WhatAFleetWatchesIsTheRegistrysEntry) {
  int drops = 0, rises = 0;
  for (const auto& p : probes::probe_registry())
    for (const auto& m : p.metrics) {
      EXPECT_EQ(probes::watched(p.id, m.name), m.watch) << p.id << "." << m.name;
      if (m.watch == probes::Watch::drop) {
        ++drops;
        EXPECT_EQ(m.better, probes::Better::higher) << p.id << "." << m.name;
      }
      if (m.watch == probes::Watch::rise) {
        ++rises;
        EXPECT_EQ(m.better, probes::Better::lower) << p.id << "." << m.name;
      }
      if (m.watch) {
        EXPECT_TRUE(m.speed) << p.id << "." << m.name << " is watched, not a speed";
      }
    }
  EXPECT_GT(drops, 5);
  EXPECT_GE(rises, 1);
  EXPECT_EQ(probes::watched("sync_path", "sync_spin_cpu_fraction"), probes::Watch::rise);
  EXPECT_EQ(probes::watched("bandwidth", "d2d_gbps"), probes::Watch::drop);
  EXPECT_EQ(probes::watched("bandwidth", "theoretical_gbps"), std::nullopt);
  EXPECT_EQ(probes::watched("bandwidth", "d2d_gbps_typo"), std::nullopt);
}

}  // namespace
}  // namespace jetgate
