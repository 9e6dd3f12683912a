#include "tools/table_schema.h"

#include "catalog/state_loader.h"
#include "tools/table_lookup.h"

namespace moraine::tools {
namespace {

void AddSubtree(const catalog::TableState& table, const catalog::ColumnRecord& column, int depth,
                const std::string& parent_path, ToolTable* out) {
  const std::string path =
      parent_path.empty() ? column.column_name() : parent_path + "." + column.column_name();
  out->rows.push_back({
      column.column_id(),
      std::string(2 * depth, ' ') + column.column_name(),
      path,
      CellOf(column.has_column_type(), column.column_type()),
      CellOf(column.has_nulls_allowed(), column.nulls_allowed()),
      CellOf(column.has_default_value(), column.default_value()),
      CellOf(column.has_initial_default(), column.initial_default()),
      CellOf(column.has_parent_column(), column.parent_column()),
      CellOf(column.has_begin_snapshot(), column.begin_snapshot()),
  });
  for (const catalog::ColumnRecord* child : table.Children(column.column_id())) {
    AddSubtree(table, *child, depth + 1, path, out);
  }
}

}  // namespace

ToolTable SchemaAt(const store::KvSnapshot& snapshot, const std::string& table_name,
                   std::optional<catalog::Id> at) {
  const catalog::CatalogState state = catalog::LoadState(snapshot, at);
  const catalog::TableState& table = FindTableAt(state, table_name);
  ToolTable out;
  out.columns = {{"field_id", ToolType::kBigint},
                 {"name", ToolType::kVarchar},
                 {"path", ToolType::kVarchar},
                 {"type", ToolType::kVarchar},
                 {"nullable", ToolType::kBoolean},
                 {"default_value", ToolType::kVarchar},
                 {"initial_default", ToolType::kVarchar},
                 {"parent_field_id", ToolType::kBigint},
                 {"since_snapshot", ToolType::kBigint}};
  for (const catalog::ColumnRecord* column : table.Children(catalog::kTopLevel)) {
    AddSubtree(table, *column, 0, "", &out);
  }
  return out;
}

}  // namespace moraine::tools
