// A table as DuckLake's catalog load makes it of its rows (ducklake_table,
// ducklake_column, ducklake_tag, ducklake_column_tag,
// ducklake_inlined_data_tables): what moraine hands DuckLake for each table
// of GetCatalogForSnapshot, and what a head table image keeps
// (head_table_image.h).
//
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moraine::commit {

struct LakeTag {
  std::string key;
  std::string value;

  bool operator==(const LakeTag&) const = default;
};

struct LakeColumn {
  int64_t id = 0;
  std::string name;
  std::string type;
  std::optional<std::string> initial_default;
  // nullopt: NULL or the text "NULL" (DuckLake reads both as no default).
  std::optional<std::string> default_value;
  std::string default_value_type;
  bool nulls_allowed = true;
  // Its column_order: DuckLake orders siblings by it (ties by column id).
  int64_t order = 0;
  std::vector<LakeColumn> children;
  std::vector<LakeTag> tags;

  bool operator==(const LakeColumn&) const = default;
};

struct LakeInlinedTable {
  std::string name;
  int64_t schema_version = 0;

  bool operator==(const LakeInlinedTable&) const = default;
};

struct LakeTable {
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string uuid;
  std::string name;
  std::string path;  // resolved against its schema's path
  // As stored: nullopt when the table keeps its schema's path.
  std::optional<std::string> stored_path;
  bool path_is_relative = false;
  std::vector<LakeColumn> columns;
  std::vector<LakeTag> tags;
  std::vector<LakeInlinedTable> inlined_data_tables;

  bool operator==(const LakeTable&) const = default;
};

}  // namespace moraine::commit
