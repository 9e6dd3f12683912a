// The catalog of a DuckLake lake at one snapshot, read from the store the way
// DuckLake's own catalog load (GetCatalogForSnapshot) reads it from its
// ducklake_* tables: the schemas, tables with their nested columns, tags and
// inlined data tables, views, partitions and sorts live at that snapshot,
// with the same paths, orders and refusals. moraine's native metadata
// manager hands it to DuckLake instead of running DuckLake's six queries.
// One difference: a table's inlined data tables leave out those that hold no
// row and are not its newest (superseded by a later schema version before any
// row reached them), which no read of DuckLake's finds a row in; DuckLake
// keeps them until a flush, one per schema version.
//
// Why a second model beside catalog::CatalogState (catalog/catalog_state.h),
// which also answers "what is live at snapshot n": CatalogState is the verb
// path's model to change, typed records by id in persistent maps that a
// transaction stages on and that check each change (name collisions, RFC
// 0012's column transitions), data files included. This is DuckLake's load
// result, to hand over as is: types, defaults and paths as the text DuckLake
// parses, its orders and refusals, inlined data tables, no data files. Each
// is read from the same rows by the same row mapping; converting one into the
// other would cost every native attach or every verb what it does not need.
//
// Thread-safety: ReadLakeCatalog uses the RowTransaction it is given, which
// the caller serializes (as every RowTransaction use).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commit/rows/row_transaction.h"

namespace moraine::commit {

struct LakeTag {
  std::string key;
  std::string value;
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
  std::vector<LakeColumn> children;
  std::vector<LakeTag> tags;
};

struct LakeSchema {
  int64_t id = 0;
  std::string uuid;
  std::string name;
  std::string path;  // resolved against the lake's data path
  // As stored: nullopt when the schema keeps the lake's data path.
  std::optional<std::string> stored_path;
  bool path_is_relative = false;
};

struct LakeInlinedTable {
  std::string name;
  int64_t schema_version = 0;
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
};

struct LakeView {
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string uuid;
  std::string name;
  std::string dialect;
  std::string column_aliases;  // as stored: DuckLake's quoted list
  std::string sql;
  std::vector<LakeTag> tags;
};

struct LakeKeyField {
  int64_t key_index = 0;
  int64_t column_id = 0;   // partitions
  std::string transform;   // partitions
  std::string expression;  // sorts
  std::string dialect;     // sorts
  bool descending = false;
  bool nulls_first = false;
};

// A partition or a sort of one table: DuckLake groups the key fields of
// consecutive rows of one table under the first id it meets.
struct LakeKey {
  int64_t id = 0;
  int64_t table_id = 0;
  std::vector<LakeKeyField> fields;
};

struct LakeCatalog {
  std::vector<LakeSchema> schemas;
  // Immutable once read, and shared: a catalog advanced past a commit
  // (head_catalog_cache.h) copies pointers and re-reads only the tables the
  // commit touched, whatever the other tables hold (a table's columns, its
  // inlined data tables of every schema version).
  std::vector<std::shared_ptr<const LakeTable>> tables;
  std::vector<LakeView> views;
  std::vector<LakeKey> partitions;
  std::vector<LakeKey> sorts;
  bool views_need_sql = false;  // a view without a column alias list
  bool has_macros = false;      // a live macro
  // Whether the catalog holds what moraine leaves to DuckLake's SQL.
  bool needs_sql() const { return views_need_sql || has_macros; }
};

// The catalog at `snapshot_id` as `rows` sees it. `data_path` and
// `separator` are the lake's (DuckLake resolves relative paths against
// them). Throws store::InvalidArgumentError with DuckLake's words for a
// catalog DuckLake refuses to load: a table without columns, a table of a
// missing schema, a column whose parent is missing.
LakeCatalog ReadLakeCatalog(RowTransaction& rows, int64_t snapshot_id, const std::string& data_path,
                            const std::string& separator);

// Advancing a catalog read at one head to a newer head, by key, for what a
// commit changed (head_catalog_cache.h). `rows` must see the newer head,
// `head_snapshot_id`, and nothing staged.
//
// Re-reads everything of table `table_id` (the table, its columns and their
// tags, its own tags, inlined data tables, partition and sort) into
// `catalog`: replaced in id order, or removed when the table is not live.
// The same refusals as ReadLakeCatalog.
void RereadLakeTable(RowTransaction& rows, int64_t head_snapshot_id, const std::string& separator,
                     int64_t table_id, LakeCatalog& catalog);
// Re-reads the views (with their tags) and whether a macro is live.
void RereadLakeViews(RowTransaction& rows, int64_t head_snapshot_id, LakeCatalog& catalog);

}  // namespace moraine::commit
