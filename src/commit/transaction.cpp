#include "commit/transaction.h"

#include <algorithm>
#include <unordered_set>

#include "catalog/uuid.h"
#include "store/error.h"
#include "store/value_frame.h"

namespace moraine::commit {

using catalog::ColumnRecord;
using catalog::kTopLevel;
using catalog::SchemaRecord;
using catalog::TableRecord;
using catalog::TableState;
using store::Key;
using store::Kind;

namespace {

// DuckLake writes the string 'NULL' (not SQL NULL) as default_value when a
// column has no default, and marks nested roots with an empty value type.
constexpr const char* kNoDefault = "NULL";

bool IsNestedType(const std::string& type) {
  return type == "struct" || type == "list" || type == "map";
}

std::string JoinPath(const ColumnPath& path) {
  std::string joined;
  for (const auto& part : path) joined += (joined.empty() ? "" : ".") + part;
  return joined;
}

uint64_t U(Id id) { return static_cast<uint64_t>(id); }

}  // namespace

bool TouchedSet::Overlaps(const TouchedSet& other) const {
  if (schema_list && other.schema_list) return true;
  for (Id table : tables) {
    if (other.tables.count(table)) return true;
  }
  return false;
}

std::string QuoteIdentifier(const std::string& name) {
  std::string quoted = "\"";
  for (char c : name) {
    quoted.push_back(c);
    if (c == '"') quoted.push_back('"');
  }
  return quoted + "\"";
}

Transaction::Transaction(CatalogState base)
    : working_(std::move(base)),
      snapshot_id_(working_.snapshot_id() + 1),
      base_schema_version_(working_.schema_version()) {}

// ---------------------------------------------------------------------------
// Lookups

const SchemaRecord& Transaction::RequireSchema(const std::string& name) const {
  const SchemaRecord* schema = working_.FindSchema(name);
  if (!schema) throw store::NotFoundError("schema \"" + name + "\" does not exist");
  return *schema;
}

const TableState& Transaction::RequireTable(Id table) const {
  const TableState* state = working_.Table(table);
  if (!state)
    throw store::NotFoundError("table with id " + std::to_string(table) + " does not exist");
  return *state;
}

const TableState& Transaction::RequireTableNamed(const std::string& schema_name,
                                                 const std::string& name) const {
  const TableState* table = working_.FindTable(RequireSchema(schema_name).schema_id(), name);
  if (!table) {
    throw store::NotFoundError("table \"" + name + "\" does not exist in schema \"" + schema_name +
                               "\"");
  }
  return *table;
}

void Transaction::RequireFreeTableName(const SchemaRecord& schema, const std::string& name) const {
  if (name.empty()) throw store::InvalidArgumentError("a table name may not be empty");
  if (working_.FindTable(schema.schema_id(), name)) {
    throw store::ConstraintError("table \"" + name + "\" already exists in schema \"" +
                                 schema.schema_name() + "\"");
  }
}

const ColumnRecord& Transaction::RequireColumn(Id table, const ColumnPath& path) const {
  const ColumnRecord* column = RequireTable(table).FindColumn(path);
  if (!column) {
    throw store::NotFoundError("column \"" + JoinPath(path) + "\" does not exist in table " +
                               std::to_string(table));
  }
  return *column;
}

void Transaction::RequireUniqueColumnName(const TableState& table, Id parent,
                                          const std::string& name) const {
  if (name.empty()) throw store::InvalidArgumentError("a column name may not be empty");
  if (table.FindChild(parent, name)) {
    throw store::ConstraintError("column \"" + name + "\" already exists in table \"" +
                                 table.record.table_name() + "\"");
  }
}

Id Transaction::AllocateCatalogId() {
  auto& snapshot = working_.mutable_snapshot();
  const Id id = snapshot.next_catalog_id();
  snapshot.set_next_catalog_id(id + 1);
  return id;
}

// ---------------------------------------------------------------------------
// Key-level staging

template <class Record>
void Transaction::PutVersion(Kind kind, std::initializer_list<uint64_t> comps,
                             const Record& record) {
  writes_[Key::Current(kind, comps).Encode()] = store::FrameValue(kind, record);
}

template <class Record>
void Transaction::EndVersion(Kind kind, std::initializer_list<uint64_t> comps, Record record) {
  writes_[Key::Current(kind, comps).Encode()] = std::nullopt;
  // A version born in this transaction was never visible: it leaves no history.
  if (record.begin_snapshot() == snapshot_id_) return;
  record.set_end_snapshot(snapshot_id_);
  writes_[Key::History(kind, comps, U(snapshot_id_)).Encode()] = store::FrameValue(kind, record);
}

void Transaction::PutColumn(const ColumnRecord& column) {
  PutVersion(Kind::kColumn, {U(column.table_id()), U(column.column_id())}, column);
  working_.PutColumn(column);
}

void Transaction::EndColumn(const ColumnRecord& column) {
  EndVersion(Kind::kColumn, {U(column.table_id()), U(column.column_id())}, column);
  working_.EraseColumn(column.table_id(), column.column_id());
}

void Transaction::ReplaceColumn(const ColumnRecord& column, ColumnRecord replacement) {
  const ColumnRecord old = column;  // `column` may live in working_, which changes below
  EndColumn(old);
  replacement.set_begin_snapshot(snapshot_id_);
  replacement.clear_end_snapshot();
  PutColumn(replacement);
  TouchTableSchema(old.table_id());
}

void Transaction::PutTableRecord(const TableRecord& table, bool new_version) {
  const TableState* existing = working_.Table(table.table_id());
  TableRecord record = table;
  if (new_version && existing) {
    EndVersion(Kind::kTable, {U(table.table_id())}, existing->record);
    record.set_begin_snapshot(snapshot_id_);
  }
  PutVersion(Kind::kTable, {U(table.table_id())}, record);
  working_.PutTable(record);
}

void Transaction::TouchTableSchema(Id table) {
  touched_.tables.insert(table);
  schema_changed_tables_.insert(table);
  schema_changed_ = true;
  NoteChange("altered_table:" + std::to_string(table));
}

void Transaction::NoteChange(const std::string& change) {
  if (std::find(changes_.begin(), changes_.end(), change) == changes_.end()) {
    changes_.push_back(change);
  }
}

// ---------------------------------------------------------------------------
// Schemas and tables

Id Transaction::CreateSchema(const std::string& name) {
  if (name.empty()) throw store::InvalidArgumentError("a schema name may not be empty");
  if (working_.FindSchema(name)) {
    throw store::ConstraintError("schema \"" + name + "\" already exists");
  }
  SchemaRecord schema;
  schema.set_schema_id(AllocateCatalogId());
  schema.set_schema_uuid(catalog::NewUuid());
  schema.set_begin_snapshot(snapshot_id_);
  schema.set_schema_name(name);
  schema.set_path(name + "/");
  schema.set_path_is_relative(true);
  PutVersion(Kind::kSchema, {U(schema.schema_id())}, schema);
  working_.PutSchema(schema);
  touched_.schema_list = true;
  schema_changed_ = true;
  NoteChange("created_schema:" + QuoteIdentifier(name));
  return schema.schema_id();
}

void Transaction::DropSchema(const std::string& name) {
  const SchemaRecord schema = RequireSchema(name);
  if (!working_.TablesOf(schema.schema_id()).empty()) {
    throw store::ConstraintError("schema \"" + name + "\" is not empty: drop its tables first");
  }
  EndVersion(Kind::kSchema, {U(schema.schema_id())}, schema);
  working_.EraseSchema(schema.schema_id());
  touched_.schema_list = true;
  schema_changed_ = true;
  NoteChange("dropped_schema:" + std::to_string(schema.schema_id()));
}

Id Transaction::CreateTable(const std::string& schema_name, const std::string& name,
                            const std::vector<ColumnDef>& columns) {
  const SchemaRecord& schema = RequireSchema(schema_name);
  if (name.empty()) throw store::InvalidArgumentError("a table name may not be empty");
  if (columns.empty()) throw store::InvalidArgumentError("a table needs at least one column");
  RequireFreeTableName(schema, name);
  TableRecord table;
  table.set_table_id(AllocateCatalogId());
  table.set_table_uuid(catalog::NewUuid());
  table.set_begin_snapshot(snapshot_id_);
  table.set_schema_id(schema.schema_id());
  table.set_table_name(name);
  table.set_path(name + "/");
  table.set_path_is_relative(true);
  working_.PutTable(table);

  // Field ids from 1 in pre-order over the column list (DuckLake's rule).
  std::unordered_set<std::string> top_level_names;
  for (const auto& column : columns) {
    if (!top_level_names.insert(column.name).second) {
      throw store::ConstraintError("column \"" + column.name + "\" is defined twice");
    }
  }
  Id next_id = 1;
  std::vector<ColumnRecord> records;
  for (const auto& column : columns) {
    AddColumnTree(*working_.Table(table.table_id()), kTopLevel, column, next_id, records);
  }
  for (const auto& record : records) PutColumn(record);
  table.set_next_column_id(U(next_id));
  PutTableRecord(table, /*new_version=*/false);

  touched_.tables.insert(table.table_id());
  schema_changed_tables_.insert(table.table_id());
  schema_changed_ = true;
  NoteChange("created_table:" + QuoteIdentifier(schema_name) + "." + QuoteIdentifier(name));
  return table.table_id();
}

void Transaction::DropTable(const std::string& schema_name, const std::string& name) {
  const TableState table = RequireTableNamed(schema_name, name);
  table.columns.ForEach([&](Id, const ColumnRecord& column) {
    EndVersion(Kind::kColumn, {U(table.id()), U(column.column_id())}, column);
    return true;
  });
  table.data_files.ForEach([&](Id, const catalog::DataFileRecord& file) {
    EndVersion(Kind::kDataFile, {U(table.id()), U(file.data_file_id())}, file);
    return true;
  });
  EndVersion(Kind::kTable, {U(table.id())}, table.record);
  working_.EraseTable(table.id());
  touched_.tables.insert(table.id());
  schema_changed_ = true;
  NoteChange("dropped_table:" + std::to_string(table.id()));
}

void Transaction::RenameTable(const std::string& schema_name, const std::string& name,
                              const std::string& new_name) {
  TableRecord renamed = RequireTableNamed(schema_name, name).record;
  RequireFreeTableName(RequireSchema(schema_name), new_name);
  renamed.set_table_name(new_name);
  PutTableRecord(renamed, /*new_version=*/true);
  TouchTableSchema(renamed.table_id());
}

// ---------------------------------------------------------------------------
// Columns

void Transaction::AddColumnTree(const TableState& table, Id parent, const ColumnDef& def,
                                Id& next_id, std::vector<ColumnRecord>& out) const {
  if (def.name.empty()) throw store::InvalidArgumentError("a column name may not be empty");
  if (def.type.empty()) {
    throw store::InvalidArgumentError("column \"" + def.name + "\" has no type");
  }
  const bool nested = IsNestedType(def.type);
  if (!nested && !def.children.empty()) {
    throw store::InvalidArgumentError("column \"" + def.name + "\" of type " + def.type +
                                      " cannot have nested fields");
  }
  if (nested && def.children.empty()) {
    throw store::InvalidArgumentError(def.type + " column \"" + def.name + "\" needs fields");
  }
  ColumnRecord record;
  record.set_column_id(next_id++);
  record.set_begin_snapshot(snapshot_id_);
  record.set_table_id(table.id());
  // DuckLake writes column_order = column_id; drops leave gaps nobody renumbers.
  record.set_column_order(record.column_id());
  record.set_column_name(def.name);
  record.set_column_type(def.type);
  if (def.default_value) {
    record.set_initial_default(*def.default_value);
    record.set_default_value(*def.default_value);
  } else {
    record.set_default_value(kNoDefault);
  }
  record.set_nulls_allowed(def.nulls_allowed);
  if (parent != kTopLevel) record.set_parent_column(parent);
  record.set_default_value_type(nested ? "" : "literal");
  record.set_default_value_dialect("duckdb");
  out.push_back(record);

  std::unordered_set<std::string> child_names;
  for (const auto& child : def.children) {
    if (!child_names.insert(child.name).second) {
      throw store::ConstraintError("field \"" + child.name + "\" is defined twice in \"" +
                                   def.name + "\"");
    }
    AddColumnTree(table, record.column_id(), child, next_id, out);
  }
}

Id Transaction::AddColumn(Id table_id, const ColumnPath& parent_path, const ColumnDef& column) {
  const TableState& table = RequireTable(table_id);
  Id parent = kTopLevel;
  if (!parent_path.empty()) {
    const ColumnRecord& parent_column = RequireColumn(table_id, parent_path);
    if (parent_column.column_type() != "struct") {
      throw store::InvalidArgumentError("cannot add a field to \"" + JoinPath(parent_path) +
                                        "\": it is a " + parent_column.column_type() +
                                        ", not a struct");
    }
    parent = parent_column.column_id();
  }
  RequireUniqueColumnName(table, parent, column.name);

  // The persisted counter survives history expiry; the live maximum guards
  // against a counter that is absent or behind (RFC 0012).
  const Id counter =
      table.record.has_next_column_id() ? static_cast<Id>(table.record.next_column_id()) : 0;
  Id next_id = std::max(counter, table.MaxColumnId() + 1);
  std::vector<ColumnRecord> records;
  AddColumnTree(table, parent, column, next_id, records);
  for (const auto& record : records) PutColumn(record);

  // next_column_id is moraine's own field: DuckLake's row is unchanged, so
  // the current record is updated in place rather than versioned.
  TableRecord updated = working_.Table(table_id)->record;
  updated.set_next_column_id(U(next_id));
  PutTableRecord(updated, /*new_version=*/false);
  TouchTableSchema(table_id);
  return records.front().column_id();
}

void Transaction::DropColumn(Id table_id, const ColumnPath& path) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  const TableState& table = RequireTable(table_id);
  if (!column.has_parent_column() && table.TopLevelColumnCount() <= 1) {
    throw store::InvalidArgumentError("cannot drop column \"" + column.column_name() +
                                      "\": it is the last column of table \"" +
                                      table.record.table_name() + "\"");
  }
  // The whole subtree ends in this snapshot: a field whose parent is gone is
  // not a column anyone can name.
  for (Id id : table.Subtree(column.column_id())) {
    const ColumnRecord victim = *working_.Table(table_id)->FindColumn(id);
    EndColumn(victim);
  }
  TouchTableSchema(table_id);
}

void Transaction::RenameColumn(Id table_id, const ColumnPath& path, const std::string& new_name) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  if (column.column_name() == new_name) return;
  RequireUniqueColumnName(RequireTable(table_id), catalog::ParentOf(column), new_name);
  ColumnRecord renamed = column;
  renamed.set_column_name(new_name);
  ReplaceColumn(column, renamed);
}

void Transaction::ReorderColumns(Id table_id, const std::vector<std::string>& names) {
  std::vector<ColumnRecord> columns;
  std::unordered_set<std::string> seen;
  for (const auto& name : names) {
    if (!seen.insert(name).second) {
      throw store::InvalidArgumentError("column \"" + name + "\" is named twice in a reorder");
    }
    columns.push_back(RequireColumn(table_id, {name}));
  }
  std::vector<int64_t> positions;
  for (const auto& column : columns) positions.push_back(column.column_order());
  std::sort(positions.begin(), positions.end());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].column_order() == positions[i]) continue;  // untouched: writes nothing
    ColumnRecord reordered = columns[i];
    reordered.set_column_order(positions[i]);
    ReplaceColumn(columns[i], reordered);
  }
}

void Transaction::ChangeColumnType(Id table_id, const ColumnPath& path,
                                   const std::string& new_type) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  if (new_type.empty()) throw store::InvalidArgumentError("a column type may not be empty");
  if (column.column_type() == new_type) return;
  ColumnRecord promoted = column;
  promoted.set_column_type(new_type);
  ReplaceColumn(column, promoted);
}

void Transaction::SetColumnDefault(Id table_id, const ColumnPath& path,
                                   const std::string& literal) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  ColumnRecord updated = column;
  updated.set_default_value(literal);
  updated.set_default_value_type("literal");
  ReplaceColumn(column, updated);
}

void Transaction::DropColumnDefault(Id table_id, const ColumnPath& path) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  ColumnRecord updated = column;
  updated.set_default_value(kNoDefault);
  ReplaceColumn(column, updated);
}

// ---------------------------------------------------------------------------
// Data

Id Transaction::RegisterDataFile(Id table_id, const std::string& path, int64_t record_count,
                                 int64_t file_size_bytes) {
  RequireTable(table_id);
  if (path.empty()) throw store::InvalidArgumentError("a data file needs a path");
  if (record_count < 0 || file_size_bytes < 0) {
    throw store::InvalidArgumentError("a data file's record count and size cannot be negative");
  }
  auto& snapshot = working_.mutable_snapshot();
  const Id file_id = snapshot.next_file_id();
  snapshot.set_next_file_id(file_id + 1);

  catalog::DataFileRecord file;
  file.set_data_file_id(file_id);
  file.set_table_id(table_id);
  file.set_begin_snapshot(snapshot_id_);
  file.set_path(path);
  file.set_path_is_relative(false);
  file.set_file_format("parquet");
  file.set_record_count(record_count);
  file.set_file_size_bytes(file_size_bytes);
  PutVersion(Kind::kDataFile, {U(table_id), U(file_id)}, file);
  working_.PutDataFile(file);
  touched_.tables.insert(table_id);
  NoteChange("inserted_into_table:" + std::to_string(table_id));
  return file_id;
}

// ---------------------------------------------------------------------------
// The batch

store::WriteBatch Transaction::BuildBatch(const std::string& head_value,
                                          int64_t snapshot_time_micros) {
  auto& snapshot = working_.mutable_snapshot();
  snapshot.set_snapshot_id(snapshot_id_);
  snapshot.set_snapshot_time(snapshot_time_micros);
  snapshot.set_schema_version(base_schema_version_ + (schema_changed_ ? 1 : 0));
  std::string changes;
  for (const auto& change : changes_) changes += (changes.empty() ? "" : ",") + change;
  snapshot.set_changes_made(changes);
  snapshot.clear_touched_table_ids();
  for (Id table : touched_.tables) snapshot.add_touched_table_ids(table);
  snapshot.set_schema_list_changed(touched_.schema_list);

  store::WriteBatch batch;
  for (const auto& [key, value] : writes_) {
    if (value) {
      batch.Put(key, *value);
    } else {
      batch.Delete(key);
    }
  }
  batch.Put(Key::Current(Kind::kSnapshot, {U(snapshot_id_)}).Encode(),
            store::FrameValue(Kind::kSnapshot, snapshot));
  if (schema_changed_) {
    for (Id table : schema_changed_tables_) {
      if (!working_.Table(table)) continue;  // dropped again in this transaction
      catalog::SchemaVersionRecord version;
      version.set_begin_snapshot(snapshot_id_);
      version.set_schema_version(snapshot.schema_version());
      version.set_table_id(table);
      batch.Put(Key::Current(Kind::kSchemaVersion, {U(table), U(snapshot_id_)}).Encode(),
                store::FrameValue(Kind::kSchemaVersion, version));
    }
  }
  batch.Put(Key::Current(Kind::kHead, {}).Encode(), head_value);
  return batch;
}

}  // namespace moraine::commit
