// A row of a DuckLake catalog table as the staged-row path carries it.
//
// Thread-safety: value types: concurrent const reads are safe; a write needs
// the value to itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace moraine::catalog {

// A cell value moraine stores without interpreting it: the user-typed columns
// of inlined data tables, encoded by the DuckDB shim.
struct OpaqueValue {
  std::string bytes;
  bool operator==(const OpaqueValue&) const = default;
};

// SQL NULL, BIGINT (TIMESTAMPTZ as microseconds since the epoch, UTC), BOOLEAN,
// VARCHAR (UUID in canonical text), or an opaque value.
using Cell = std::variant<std::monostate, int64_t, bool, std::string, OpaqueValue>;
using Row = std::vector<Cell>;  // in the table's column order

inline bool IsNull(const Cell& cell) { return std::holds_alternative<std::monostate>(cell); }

// The cell's value if it holds a T; nullopt for NULL or a value of another type.
template <class T>
std::optional<T> CellAs(const Cell& cell) {
  if (const T* value = std::get_if<T>(&cell)) return *value;
  return std::nullopt;
}

}  // namespace moraine::catalog
