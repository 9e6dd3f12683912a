// A small, typed result table: what every store tool returns, so the host
// can print it (box, CSV, JSON) and the DuckDB shim can serve it as a table
// function without either knowing which tool made it.
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the table to itself.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace moraine::tools {

enum class ToolType { kBigint, kVarchar, kBoolean };

// NULL, BIGINT, VARCHAR or BOOLEAN.
using ToolCell = std::variant<std::monostate, int64_t, std::string, bool>;
using ToolRow = std::vector<ToolCell>;

struct ToolColumn {
  std::string name;
  ToolType type;
};

struct ToolTable {
  std::vector<ToolColumn> columns;
  std::vector<ToolRow> rows;  // each row has columns.size() cells of the column's type (or NULL)
};

// A cell from an optional value: NULL when absent.
template <class T>
ToolCell CellOf(bool present, const T& value) {
  if (!present) return std::monostate{};
  if constexpr (std::is_same_v<T, bool>) {
    return value;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(value);
  } else {
    return std::string(value);
  }
}

}  // namespace moraine::tools
