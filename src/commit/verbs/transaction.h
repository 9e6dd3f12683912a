// A catalog transaction of the verb path: typed DuckLake operations that
// stage exactly the ducklake_* rows DuckLake itself writes for them (pinned
// DuckLake, src/storage/ducklake_metadata_manager.cpp and
// ducklake_transaction.cpp), on a RowTransaction and through the one row
// mapping (commit/verbs/catalog_rows.h). The rows land with the RowTransaction's
// commit, as one atomic batch, exactly like the rows DuckLake's SQL stages.
//
// Per operation, DuckLake's rows:
//   - a changed version is ended (end_snapshot = this snapshot) and its
//     successor inserted with begin_snapshot = this snapshot; a version this
//     transaction created and changes again is replaced (never visible);
//   - a column gets column_order = column_id, default_value the text 'NULL'
//     when it has none, dialect 'duckdb', default_value_type 'literal' (''
//     for a nested root when it is created; a rewritten top-level version is
//     'literal' again); a field added to or renamed in a struct is written
//     NOT NULL (renamed: with an empty default_value_type), as DuckLake's
//     ALTER paths write them; field ids come from MAX(column_id) + 1 over
//     every version of the table's columns;
//   - a table created in this transaction is reported as created only, and
//     one created and dropped again leaves no row (nor, alone, a snapshot);
//   - DROP TABLE ends the table and its partitions, columns, column tags,
//     data files, delete files, tags and sorts;
//   - the snapshot row, its ducklake_snapshot_changes text and, per table
//     created, renamed or altered, a ducklake_schema_versions row and, unless
//     only a default changed, (with data inlining on, DuckLake's default) a
//     new inlined data table registered in ducklake_inlined_data_tables.
//
// Not yet DuckLake's: RegisterDataFile writes no column stats or name
// mapping (DuckLake's ducklake_add_data_files reads them from the Parquet
// footer), and several operations in one transaction are checked against
// DuckLake only by the model property test, not row for row.
//
// Thread-safety: a Transaction is used by one thread (Catalog::Commit runs
// its closure on the calling thread).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog_state.h"
#include "catalog/column_def.h"
#include "commit/rows/row_transaction.h"
#include "commit/verbs/catalog_rows.h"

namespace moraine::commit {

using catalog::CatalogState;
using catalog::ColumnDef;
using catalog::ColumnPath;
using catalog::Id;

class Transaction {
 public:
  // A transaction over `base`, the catalog at the snapshot `rows` began at;
  // if it commits, it writes snapshot base + 1. `rows` must outlive it.
  Transaction(CatalogState base, RowTransaction& rows);

  // The catalog as this transaction sees it: the base plus its own changes.
  const CatalogState& state() const { return working_; }
  Id snapshot_id() const { return snapshot_id_; }

  // --- Schemas and tables ---
  Id CreateSchema(const std::string& name);
  // Refused while the schema holds a table (DuckLake: DROP SCHEMA without
  // CASCADE on a non-empty schema).
  void DropSchema(const std::string& name);
  Id CreateTable(const std::string& schema, const std::string& name,
                 const std::vector<ColumnDef>& columns);
  void DropTable(const std::string& schema, const std::string& name);
  void RenameTable(const std::string& schema, const std::string& name, const std::string& new_name);

  // --- Columns (RFC 0012). `table` is the table id. ---
  // Adds `column` (with its nested fields) under `parent` (empty: top level).
  // Returns the new column's field id.
  Id AddColumn(Id table, const ColumnPath& parent, const ColumnDef& column);
  // Drops the column and its whole nested subtree. The table's last top-level
  // column is refused.
  void DropColumn(Id table, const ColumnPath& path);
  void RenameColumn(Id table, const ColumnPath& path, const std::string& new_name);
  // Stores `new_type` verbatim: DuckLake owns which promotions are legal.
  void ChangeColumnType(Id table, const ColumnPath& path, const std::string& new_type);
  void SetColumnDefault(Id table, const ColumnPath& path, const std::string& literal);
  void DropColumnDefault(Id table, const ColumnPath& path);

  // --- Data ---
  // Registers a Parquet data file of `table` (its rows get the next row ids)
  // and updates the table's ducklake_table_stats; returns its data_file_id.
  Id RegisterDataFile(Id table, const std::string& path, int64_t record_count,
                      int64_t file_size_bytes);

  // --- Commit plumbing (used by Catalog) ---
  bool HasChanges() const { return !changes_.empty(); }
  // Stages this snapshot's own rows (ducklake_snapshot, its changes,
  // ducklake_schema_versions). After it, state() is the catalog as it will
  // be once the RowTransaction has committed. Call once, then commit `rows`.
  void StageSnapshot(int64_t snapshot_time_micros);

 private:
  const catalog::SchemaRecord& RequireSchema(const std::string& name) const;
  const catalog::TableState& RequireTable(Id table) const;
  const catalog::TableState& RequireTableNamed(const std::string& schema,
                                               const std::string& name) const;
  // Refuses an empty name or one a live table of `schema` already has.
  void RequireFreeTableName(const catalog::SchemaRecord& schema, const std::string& name) const;
  const catalog::ColumnRecord& RequireColumn(Id table, const ColumnPath& path) const;
  void RequireUniqueColumnName(const catalog::TableState& table, Id parent,
                               const std::string& name) const;
  Id AllocateCatalogId();

  // Ends `column`'s version and inserts `replacement` (begin = this snapshot).
  // `reshapes`: the change alters the table's columns, not only a default.
  void ReplaceColumn(const catalog::ColumnRecord& column, catalog::ColumnRecord replacement,
                     bool reshapes = true);
  void EndColumn(const catalog::ColumnRecord& column);
  void PutColumn(const catalog::ColumnRecord& column);
  void AddColumnTree(const catalog::TableState& table, Id parent, const ColumnDef& def, Id& next_id,
                     std::vector<catalog::ColumnRecord>& out) const;
  // A change of `table`'s schema: a schema_versions row and altered_table;
  // `reshapes` (not a default): a new inlined data table too.
  void AlterTableSchema(Id table, bool reshapes = true);
  void NoteChange(const std::string& change);
  void ForgetChange(const std::string& change);
  // Whether DuckLake inlines `table`'s rows: its data_inlining_row_limit
  // option (table, schema or lake scope; default 10) is not 0.
  bool InliningEnabled(const catalog::TableState& table);
  // Notes that `column` (live in the working state) changes shape: its
  // top-level column's inlined declaration changes.
  void TouchColumn(const catalog::ColumnRecord& column);
  // What this transaction changed of `table`'s inlined declaration, column by
  // touched column; nullopt when a changed column is one DuckLake does not
  // inline.
  std::optional<std::vector<inlined::ShapeChange>> ShapeChanges(Id table) const;
  // The new inlined data table of reshaped `table` at `schema_version`, and
  // its ducklake_inlined_data_tables row, unless DuckLake would not inline it.
  void StageInlinedDataTable(Id table, Id schema_version);

  const CatalogState base_;  // the catalog this transaction began from
  CatalogState working_;
  CatalogRows rows_;
  Id snapshot_id_;
  Id base_schema_version_;
  std::set<Id> schema_changed_tables_;
  std::set<Id> reshaped_tables_;
  std::set<Id> created_tables_;  // created by this transaction
  // Per table, the top-level columns whose inlined declaration this
  // transaction changed (added, dropped, renamed, retyped, or a field within).
  std::map<Id, std::set<Id>> touched_columns_;
  // Per table whose columns this transaction added: the column id counter
  // its committed versions imply (1 for a table created here).
  std::map<Id, Id> committed_next_column_id_;  // columns changed shape: a new inlined table
  bool schema_changed_ = false;
  std::vector<std::string> changes_;
};

// `"name"` with embedded quotes doubled, as DuckLake writes names into
// ducklake_snapshot_changes.
std::string QuoteIdentifier(const std::string& name);

}  // namespace moraine::commit
