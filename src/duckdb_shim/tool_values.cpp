#include "duckdb_shim/tool_values.h"

#include <variant>

namespace moraine::duckdb_shim {

duckdb::LogicalType ToolColumnType(tools::ToolType type) {
  switch (type) {
    case tools::ToolType::kBigint:
      return duckdb::LogicalType::BIGINT;
    case tools::ToolType::kBoolean:
      return duckdb::LogicalType::BOOLEAN;
    case tools::ToolType::kVarchar:
      return duckdb::LogicalType::VARCHAR;
  }
  return duckdb::LogicalType::VARCHAR;
}

duckdb::Value ToolCellValue(const tools::ToolCell& cell, tools::ToolType type) {
  if (const auto* number = std::get_if<int64_t>(&cell)) return duckdb::Value::BIGINT(*number);
  if (const auto* flag = std::get_if<bool>(&cell)) return duckdb::Value::BOOLEAN(*flag);
  if (const auto* text = std::get_if<std::string>(&cell)) return duckdb::Value(*text);
  return duckdb::Value(ToolColumnType(type));
}

}  // namespace moraine::duckdb_shim
