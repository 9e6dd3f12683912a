// A catalog transaction: reads of one base snapshot plus DuckLake-shaped
// mutators, staged as key-level writes that land as exactly one atomic batch.
//
// Every change to an entity is a version transition (RFC 0012): the old
// version is ended into `history` (keyed with its end snapshot) and the new
// one written at the same `current` key, in the same batch. A version created
// by this transaction and changed again before commit is simply replaced: it
// was never visible at any snapshot, so it has no history to keep.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "catalog/catalog_state.h"
#include "catalog/column_def.h"
#include "store/key.h"
#include "store/write_batch.h"

namespace moraine::commit {

using catalog::CatalogState;
using catalog::ColumnDef;
using catalog::ColumnPath;
using catalog::Id;

// What a transaction touched, for the table-level conflict rule (RFC 0004).
struct TouchedSet {
  std::set<Id> tables;
  bool schema_list = false;  // CREATE/DROP SCHEMA conflict at schema-list grain

  bool Overlaps(const TouchedSet& other) const;
};

class Transaction {
 public:
  // A transaction over `base`; if it commits, it writes snapshot base + 1.
  explicit Transaction(CatalogState base);

  // The catalog as this transaction sees it: the base plus its own changes.
  const CatalogState& state() const { return working_; }
  Id snapshot_id() const { return snapshot_id_; }

  // --- Schemas and tables ---
  Id CreateSchema(const std::string& name);
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
  // Gives the named top-level columns the positions their order in `names`
  // implies, using the positions those columns hold now; columns whose
  // position does not change are not touched.
  void ReorderColumns(Id table, const std::vector<std::string>& names);
  // Stores `new_type` verbatim: DuckLake owns which promotions are legal.
  void ChangeColumnType(Id table, const ColumnPath& path, const std::string& new_type);
  void SetColumnDefault(Id table, const ColumnPath& path, const std::string& literal);
  void DropColumnDefault(Id table, const ColumnPath& path);

  // --- Data ---
  // Registers a Parquet data file of `table`; returns its data_file_id.
  Id RegisterDataFile(Id table, const std::string& path, int64_t record_count,
                      int64_t file_size_bytes);

  // --- Commit plumbing (used by Catalog) ---
  bool HasChanges() const { return !writes_.empty(); }
  const TouchedSet& touched() const { return touched_; }
  bool schema_changed() const { return schema_changed_; }
  // The one batch this transaction lands: every staged write, its snapshot
  // record, its schema_versions rows and the new head (`head_value`). After
  // it, state() is the catalog as it will be once that batch has landed.
  store::WriteBatch BuildBatch(const std::string& head_value, int64_t snapshot_time_micros);

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

  // Key-level staging. `comps` are the kind's current-key components.
  template <class Record>
  void PutVersion(store::Kind kind, std::initializer_list<uint64_t> comps, const Record& record);
  template <class Record>
  void EndVersion(store::Kind kind, std::initializer_list<uint64_t> comps, Record record);
  // Ends `column`'s version and writes `replacement` (begin = this snapshot).
  void ReplaceColumn(const catalog::ColumnRecord& column, catalog::ColumnRecord replacement);
  void EndColumn(const catalog::ColumnRecord& column);
  void PutColumn(const catalog::ColumnRecord& column);
  void PutTableRecord(const catalog::TableRecord& table, bool new_version);
  void AddColumnTree(const catalog::TableState& table, Id parent, const ColumnDef& def, Id& next_id,
                     std::vector<catalog::ColumnRecord>& out) const;
  void TouchTableSchema(Id table);
  void NoteChange(const std::string& change);

  CatalogState working_;
  Id snapshot_id_;
  Id base_schema_version_;
  std::map<std::string, std::optional<std::string>> writes_;  // key -> value, or delete
  TouchedSet touched_;
  std::set<Id> schema_changed_tables_;
  bool schema_changed_ = false;
  std::vector<std::string> changes_;
};

// `"name"` with embedded quotes doubled, as DuckLake writes names into
// ducklake_snapshot_changes.
std::string QuoteIdentifier(const std::string& name);

}  // namespace moraine::commit
