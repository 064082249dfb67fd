// Names of the enums that users spell on command lines and in JSON: one table per enum serves
// parsing and printing, so the two directions cannot disagree. The first row of a value is its
// name; further rows are accepted aliases.
#pragma once

#include "nova/exact/rational.hpp"  // InputError

#include <span>
#include <string>
#include <string_view>

namespace nova::exact {

template <class Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

template <class Enum>
std::string_view enum_name(std::span<const EnumName<Enum>> table, Enum value) {
  for (const EnumName<Enum>& row : table)
    if (row.value == value) return row.name;
  return "unknown";
}

// Throws InputError naming `what` and every accepted spelling.
template <class Enum>
Enum parse_enum(std::span<const EnumName<Enum>> table, std::string_view text, std::string_view what) {
  std::string accepted;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name == text) return table[i].value;
    accepted += (i == 0 ? "" : i + 1 == table.size() ? " or " : ", ") + std::string(table[i].name);
  }
  throw InputError("unknown " + std::string(what) + " '" + std::string(text) + "': expected " + accepted);
}

}  // namespace nova::exact
