// `moraine lineage PATH TABLE.COLUMN` and moraine_column_lineage(): every
// version of one field (RFC 0012: a column is its eternal field id; each
// change ends a version into history and starts the next), and the data files
// whose Parquet carries that field id.
//
// Thread-safety: plain data; TraceColumn reads only `snapshot` (whose reads may
// run concurrently), so any thread may call it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/records.h"
#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

struct LineageRequest {
  std::string table;  // "table" or "schema.table", as named at any time
  // The column by name from the top level down ({"s", "x"}: field x of
  // struct s), any name it ever bore; ignored when field_id is set.
  std::vector<std::string> column_path;
  std::optional<catalog::Id> field_id = std::nullopt;
};

struct ColumnLineage {
  // (field_id, version, name, type, default_value, initial_default, nullable,
  // parent_field_id, begin_snapshot, end_snapshot, ended_by, ending_changes),
  // oldest version first. `ended_by` says what the next version changed (or
  // "dropped", "table dropped"); `ending_changes` is DuckLake's
  // changes_made of the snapshot that ended the version.
  ToolTable versions;
  // (data_file_id, path, record_count, begin_snapshot, end_snapshot): files
  // with statistics for the field or one of its nested fields.
  ToolTable files;
};

// Throws store::NotFoundError for a table or column that never existed.
ColumnLineage TraceColumn(const store::KvSnapshot& snapshot, const LineageRequest& request);

}  // namespace moraine::tools
