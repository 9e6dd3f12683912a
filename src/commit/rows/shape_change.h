// What a schema change tells the store about the top-level columns it
// touched, so that the inlined data table of the new schema version can be
// written as what changed (commit/rows/inlined_table_shape.h).
//
// Thread-safety: plain data.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace moraine::commit::inlined {

// How an inlined data table orders its user columns: by the top-level
// column's (column_order, column_id).
struct ShapeKey {
  int64_t column_order = 0;
  int64_t column_id = 0;
  auto operator<=>(const ShapeKey&) const = default;
};

// A user column of an inlined data table and its key.
struct KeyedColumn {
  ShapeKey key;
  std::string name;
  std::string type;  // the DuckDB type, as DuckLake declares it
};

// A top-level column one schema change touched: whether the table held it
// before the change, and the column it is after (nullopt: dropped).
struct ShapeChange {
  ShapeKey key;
  bool existed_before = false;
  std::optional<KeyedColumn> after;
};

}  // namespace moraine::commit::inlined
