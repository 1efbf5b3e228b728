// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/units.hpp"

#include <array>
#include <cstddef>

namespace jetgate::units {
namespace {

constexpr std::array<BaseInfo, 6> kBases{{
    {Base::bytes_per_second, "bytes_per_second", "A probe's measured rate, bytes per second.", 1e9,
     "GB/s", "Bps"},
    {Base::seconds, "seconds", "A probe's measured time, seconds.", 1e-6, "\u00b5s", "s"},
    {Base::bytes, "bytes", "A probe's measured size, bytes.", 1e9, "GB", "bytes"},
    {Base::ratio, "ratio", "A probe's measured ratio (1 = 100%).", 0.01, "%", "percentunit"},
    {Base::tokens_per_second, "tokens_per_second", "A probe's measured token rate.", 1, "tok/s",
     "suffix: tok/s"},
    {Base::items, "items", "A probe's counted items.", 1, "", "none"},
}};

constexpr std::array<Unit, 8> kUnits{{
    {"GB/s", Base::bytes_per_second, 1e9},
    {"us", Base::seconds, 1e-6},
    {"ms", Base::seconds, 1e-3},
    {"bytes", Base::bytes, 1},
    {"fraction", Base::ratio, 1},
    {"percent", Base::ratio, 0.01},
    {"tok/s", Base::tokens_per_second, 1},
    {"count", Base::items, 1},
}};

}  // namespace

const Unit* unit_of(std::string_view written) {
  for (const auto& u : kUnits)
    if (u.written == written) return &u;
  return nullptr;
}

// The table's rows are in the enum's order (checked when this compiles).
constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kBases.size(); ++i)
    if (static_cast<std::size_t>(kBases[i].base) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "kBases lists each Base once, in the enum's order");

const BaseInfo& info(Base base) {
  // A switch without a default: a Base added without its row does not compile.
  switch (base) {
    case Base::bytes_per_second:
    case Base::seconds:
    case Base::bytes:
    case Base::ratio:
    case Base::tokens_per_second:
    case Base::items:
      break;
  }
  return kBases.at(static_cast<std::size_t>(base));
}

const BaseInfo* base_named(std::string_view name) {
  for (const auto& b : kBases)
    if (b.name == name) return &b;
  return nullptr;
}

}  // namespace jetgate::units
