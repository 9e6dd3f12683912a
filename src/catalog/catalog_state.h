// The catalog as it stood at one snapshot, materialized in memory: the live
// schemas, tables (with their columns and data files) and views. A value type
// whose copies cost O(1) (persistent maps), so a transaction can take one,
// stage its changes on it, and become the next head without copying the lake.
// DuckLake's own load is served by commit::LakeCatalog instead
// (commit/lake/lake_catalog.h says why there are two).
//
// Thread-safety: a value type. Const members of one state may run on any
// threads at once; an edit needs the state to itself. Copies share only
// immutable nodes (persistent_map.h), so each copy may be edited on a thread of
// its own.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/column_def.h"
#include "catalog/persistent_map.h"
#include "catalog/records.h"

namespace moraine::catalog {

// (parent column id or kTopLevel, name): how a column is found by name. Names
// are scoped to their parent (RFC 0012): only siblings collide.
using ColumnNameKey = std::pair<Id, std::string>;
inline constexpr Id kTopLevel = 0;  // DuckLake column ids start at 1

// The id of a column's parent, or kTopLevel for a table's own columns.
inline Id ParentOf(const ColumnRecord& column) {
  return column.has_parent_column() ? column.parent_column() : kTopLevel;
}

struct ColumnNameKeyHash {
  size_t operator()(const ColumnNameKey& key) const {
    return std::hash<Id>{}(key.first) * 31 + std::hash<std::string>{}(key.second);
  }
};

struct TableState {
  TableRecord record;
  PersistentMap<Id, ColumnRecord> columns;  // live columns (nested fields included) by id
  PersistentMap<ColumnNameKey, Id, std::less<ColumnNameKey>, ColumnNameKeyHash> column_names;
  PersistentMap<Id, DataFileRecord> data_files;  // live data files by id

  Id id() const { return record.table_id(); }
  const ColumnRecord* FindColumn(Id column_id) const { return columns.Find(column_id); }
  // The live column at `path`, or nullptr.
  const ColumnRecord* FindColumn(const ColumnPath& path) const;
  const ColumnRecord* FindChild(Id parent, const std::string& name) const;
  // Children of `parent` (kTopLevel for the table's columns) in column order.
  std::vector<const ColumnRecord*> Children(Id parent) const;
  // `column_id` and every live descendant, parents before children.
  std::vector<Id> Subtree(Id column_id) const;
  // The highest live column id, 0 if none.
  Id MaxColumnId() const;
  size_t TopLevelColumnCount() const;
};

// Pointers and references returned by lookups stay valid until the next edit
// of the state that returned them (an edit may release the nodes they point
// into); copy what must outlive an edit.
class CatalogState {
 public:
  // The snapshot this state is at (its id, schema_version and id counters).
  const SnapshotRecord& snapshot() const { return snapshot_; }
  Id snapshot_id() const { return snapshot_.snapshot_id(); }
  Id schema_version() const { return snapshot_.schema_version(); }
  Id next_catalog_id() const { return snapshot_.next_catalog_id(); }
  Id next_file_id() const { return snapshot_.next_file_id(); }

  const SchemaRecord* FindSchema(const std::string& name) const;
  const SchemaRecord* Schema(Id schema_id) const { return schemas_.Find(schema_id); }
  const TableState* FindTable(Id schema_id, const std::string& name) const;
  const TableState* Table(Id table_id) const { return tables_.Find(table_id); }
  const ViewRecord* View(Id view_id) const { return views_.Find(view_id); }

  std::vector<const SchemaRecord*> Schemas() const;
  // Live tables of a schema, by id.
  std::vector<const TableState*> TablesOf(Id schema_id) const;
  std::vector<const TableState*> Tables() const;

  // --- Editing: used by the loader and by transactions on their own copy. ---
  void SetSnapshot(SnapshotRecord snapshot) { snapshot_ = std::move(snapshot); }
  SnapshotRecord& mutable_snapshot() { return snapshot_; }
  void PutSchema(const SchemaRecord& schema);
  void EraseSchema(Id schema_id);
  // Inserts or replaces the table record, keeping its columns and files.
  void PutTable(const TableRecord& table);
  void EraseTable(Id table_id);
  void PutColumn(const ColumnRecord& column);
  void EraseColumn(Id table_id, Id column_id);
  void PutDataFile(const DataFileRecord& file);
  void EraseDataFile(Id table_id, Id data_file_id);
  void PutView(const ViewRecord& view) { views_.Set(view.view_id(), view); }
  void EraseView(Id view_id) { views_.Erase(view_id); }

 private:
  // The table's state to edit: a copy of the live one, or an empty one.
  TableState CopyOfTable(Id table_id) const;

  SnapshotRecord snapshot_;
  PersistentMap<Id, SchemaRecord> schemas_;
  PersistentMap<Id, TableState> tables_;
  PersistentMap<Id, ViewRecord> views_;
};

}  // namespace moraine::catalog
