// The shape of DuckLake's catalog tables: which `ducklake_*` tables exist at
// each catalog version (1.0 and 1.1), their columns, types, nullability and
// primary keys, and the names of the per-table inlined-data and
// inlined-delete families.
//
// The DuckDB shim serves these tables from this description and holds no
// table shapes of its own. Ground truth is DuckLake's metadata manager at the
// pinned commit d8a1881e (src/storage/ducklake_metadata_manager.cpp); the e2e
// differential test compares this description with a stock DuckLake catalog.
//
// Thread-safety: the table descriptions are immutable statics, built on first
// use (a thread-safe initialization): any thread may read them. The structs are
// value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog_version.h"

namespace moraine::catalog {

// The SQL types DuckLake uses in its fixed catalog tables.
enum class CellType { kBigint, kVarchar, kBoolean, kUuid, kTimestampTz };

// DuckDB's name of a type, as information_schema reports it: "BIGINT",
// "VARCHAR", "BOOLEAN", "UUID", "TIMESTAMP WITH TIME ZONE".
std::string_view CellTypeName(CellType type);

struct TableColumn {
  std::string_view name;
  CellType type;
  // False for columns declared NOT NULL and for primary-key columns (a
  // primary key implies NOT NULL, and DuckDB reports it so).
  bool nullable;
};

struct CatalogTable {
  std::string_view name;  // e.g. "ducklake_column"
  std::vector<TableColumn> columns;
  std::vector<std::string_view> primary_key;  // empty: no primary key

  // The column of that name, or nullptr.
  const TableColumn* FindColumn(std::string_view column_name) const;
};

// The 28 fixed tables of catalog format 1.0, in DuckLake's creation order.
const std::vector<CatalogTable>& CatalogTablesV1_0();

// The fixed tables of `version`. 1.1 is 1.0 plus ducklake_view_column_tag
// (last, where DuckLake's migration creates it) and columns appended to five
// tables: row_group_count on ducklake_data_file and ducklake_delete_file,
// min_is_exact/max_is_exact on both column-stats tables, parent_schema_id on
// ducklake_schema.
const std::vector<CatalogTable>& CatalogTables(CatalogVersion version);

// The fixed table of that exact name at `version`, or nullptr (inlined
// tables are not fixed tables: see ParseInlinedTableName).
const CatalogTable* FindCatalogTable(std::string_view name,
                                     CatalogVersion version = CatalogVersion::kV1_0);

// A per-table inlined table: `ducklake_inlined_data_<table_id>_<schema_version>`
// holds a table's inlined rows at one schema version; `ducklake_inlined_delete_<table_id>`
// holds deletions of a table's Parquet rows.
struct InlinedTableName {
  enum Kind { kData, kDelete };
  Kind kind;
  int64_t table_id;
  int64_t schema_version;  // kData only; 0 for kDelete

  bool operator==(const InlinedTableName&) const = default;
};

// Parses an inlined table's name. Strict, so names and ids map one to one:
// decimal digits only, no sign, no leading zeros (DuckLake formats with %d),
// no overflow of int64_t, nothing trailing. Anything else is nullopt.
std::optional<InlinedTableName> ParseInlinedTableName(std::string_view name);

// The names DuckLake gives these tables. Ids must be non-negative.
std::string InlinedDataTableName(int64_t table_id, int64_t schema_version);
std::string InlinedDeleteTableName(int64_t table_id);
std::string FormatInlinedTableName(const InlinedTableName& name);

// The fixed columns of each family. An inlined data table starts with
// row_id, begin_snapshot, end_snapshot and continues with the user table's
// columns at that schema version; an inlined delete table is exactly
// file_id, row_id, begin_snapshot. All BIGINT, nullable, no primary key.
const std::vector<TableColumn>& InlinedDataLeadingColumns();
const std::vector<TableColumn>& InlinedDeleteColumns();

// Whether column `index` of the table `table_name` is a user column of an
// inlined data table (past its leading columns): DuckLake declares those with
// the user's types, which moraine stores opaquely without interpreting.
bool IsInlinedUserColumn(std::string_view table_name, size_t index);

}  // namespace moraine::catalog
