#include "commit/verbs/transaction.h"

#include <algorithm>
#include <unordered_set>

#include "catalog/ducklake_tables.h"
#include "catalog/uuid.h"
#include "commit/rows/inlined_table_spec.h"
#include "store/error.h"

namespace moraine::commit {

using catalog::ColumnRecord;
using catalog::kTopLevel;
using catalog::SchemaRecord;
using catalog::TableRecord;
using catalog::TableState;

namespace {

// The catalog tables the verbs write (catalog/ducklake_tables.h).
constexpr std::string_view kSchemaTable = "ducklake_schema";
constexpr std::string_view kTableTable = "ducklake_table";
constexpr std::string_view kColumnTable = "ducklake_column";
constexpr std::string_view kDataFileTable = "ducklake_data_file";
constexpr std::string_view kTableStatsTable = "ducklake_table_stats";
constexpr std::string_view kSnapshotTable = "ducklake_snapshot";
constexpr std::string_view kChangesTable = "ducklake_snapshot_changes";
constexpr std::string_view kSchemaVersionsTable = "ducklake_schema_versions";
constexpr std::string_view kMetadataTable = "ducklake_metadata";
constexpr std::string_view kInlinedDataTablesTable = "ducklake_inlined_data_tables";
// DuckLake's option and its default (DuckLakeCatalog::DataInliningRowLimit).
constexpr std::string_view kInliningOption = "data_inlining_row_limit";
// What DROP TABLE ends besides the table row and its columns, keyed by the
// table id (DuckLakeMetadataManager::DropTables; ducklake_tag by object_id).
constexpr std::string_view kDroppedWithTable[] = {
    "ducklake_partition_info", "ducklake_column_tag", "ducklake_data_file",
    "ducklake_delete_file",    "ducklake_tag",        "ducklake_sort_info"};

// DuckLake writes the text 'NULL' (not SQL NULL) as default_value when a
// column has no default (ColumnToSQLRecursive).
constexpr const char* kNoDefault = "NULL";
// DuckLake rewrites a changed top-level column's version with
// default_value_type 'literal', nested roots included (observed: RENAME
// COLUMN of a struct writes 'literal' where CREATE TABLE wrote '').
constexpr const char* kRewrittenValueType = "literal";

bool IsNestedType(const std::string& type) {
  return type == "struct" || type == "list" || type == "map";
}

std::string JoinPath(const ColumnPath& path) {
  std::string joined;
  for (const auto& part : path) joined += (joined.empty() ? "" : ".") + part;
  return joined;
}

// The kinds of change in the order DuckLake writes them
// (DuckLakeTransactionState::WriteSnapshotChanges).
constexpr std::string_view kChangeOrder[] = {"dropped_schema",      "dropped_table",
                                             "created_schema",      "created_table",
                                             "inserted_into_table", "altered_table"};

// DuckLake's ducklake_snapshot_changes text: by kind in its order; changes
// naming an id by id (its sets are ordered), the others (schemas by name,
// tables in the order they were created) as they came.
std::string ChangesMade(std::vector<std::string> changes) {
  auto rank = [](const std::string& change) {
    const std::string_view kind = std::string_view(change).substr(0, change.find(':'));
    for (size_t i = 0; i < std::size(kChangeOrder); ++i) {
      if (kChangeOrder[i] == kind) return i;
    }
    return std::size(kChangeOrder);
  };
  auto id = [](const std::string& change) -> int64_t {
    const std::string payload = change.substr(change.find(':') + 1);
    if (payload.empty() || payload.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoll(payload);
  };
  std::stable_sort(changes.begin(), changes.end(), [&](const auto& a, const auto& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return id(a) < id(b);
  });
  std::string text;
  for (const auto& change : changes) text += (text.empty() ? "" : ",") + change;
  return text;
}

}  // namespace

bool Transaction::InliningEnabled(const TableState& table) {
  // The most specific scope wins: table, then schema, then the lake.
  std::optional<std::string> global, schema, own;
  rows_.ForEachEntry(kMetadataTable, [&](const google::protobuf::Message& container,
                                         const google::protobuf::Message& entry) {
    const auto& scope = static_cast<const catalog::OptionRecord&>(container);
    const auto& option = static_cast<const catalog::OptionEntry&>(entry);
    if (option.key() != kInliningOption) return;
    if (!scope.has_scope()) {
      global = option.value();
    } else if (scope.scope() == "schema" && scope.scope_id() == table.record.schema_id()) {
      schema = option.value();
    } else if (scope.scope() == "table" && scope.scope_id() == table.id()) {
      own = option.value();
    }
  });
  const std::optional<std::string>& limit = own ? own : schema ? schema : global;
  return !limit || *limit != "0";
}

std::string QuoteIdentifier(const std::string& name) {
  std::string quoted = "\"";
  for (char c : name) {
    quoted.push_back(c);
    if (c == '"') quoted.push_back('"');
  }
  return quoted + "\"";
}

Transaction::Transaction(CatalogState base, RowTransaction& rows)
    : base_(base),
      working_(std::move(base)),
      rows_(rows),
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
// Staging

void Transaction::PutColumn(const ColumnRecord& column) {
  rows_.Insert(kColumnTable, column);
  working_.PutColumn(column);
}

void Transaction::EndColumn(const ColumnRecord& column) {
  rows_.End(kColumnTable, column, snapshot_id_);
  working_.EraseColumn(column.table_id(), column.column_id());
}

void Transaction::ReplaceColumn(const ColumnRecord& column, ColumnRecord replacement,
                                bool reshapes) {
  const ColumnRecord old = column;  // `column` may live in working_, which changes below
  EndColumn(old);
  replacement.set_begin_snapshot(snapshot_id_);
  replacement.clear_end_snapshot();
  PutColumn(replacement);
  AlterTableSchema(old.table_id(), reshapes);
}

void Transaction::AlterTableSchema(Id table, bool reshapes) {
  schema_changed_tables_.insert(table);
  if (reshapes) reshaped_tables_.insert(table);
  // DuckLake reports a table created in this transaction as created only.
  if (created_tables_.count(table)) return;
  schema_changed_ = true;
  NoteChange("altered_table:" + std::to_string(table));
}

void Transaction::ForgetChange(const std::string& change) {
  changes_.erase(std::remove(changes_.begin(), changes_.end(), change), changes_.end());
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
  rows_.Insert(kSchemaTable, schema);
  working_.PutSchema(schema);
  schema_changed_ = true;
  NoteChange("created_schema:" + QuoteIdentifier(name));
  return schema.schema_id();
}

void Transaction::DropSchema(const std::string& name) {
  const SchemaRecord schema = RequireSchema(name);
  if (!working_.TablesOf(schema.schema_id()).empty()) {
    throw store::ConstraintError("schema \"" + name + "\" is not empty: drop its tables first");
  }
  rows_.End(kSchemaTable, schema, snapshot_id_);
  working_.EraseSchema(schema.schema_id());
  schema_changed_ = true;
  NoteChange("dropped_schema:" + std::to_string(schema.schema_id()));
}

Id Transaction::CreateTable(const std::string& schema_name, const std::string& name,
                            const std::vector<ColumnDef>& columns) {
  const SchemaRecord& schema = RequireSchema(schema_name);
  if (name.empty()) throw store::InvalidArgumentError("a table name may not be empty");
  if (columns.empty()) throw store::InvalidArgumentError("a table needs at least one column");
  RequireFreeTableName(schema, name);
  std::unordered_set<std::string> top_level_names;
  for (const auto& column : columns) {
    if (!top_level_names.insert(column.name).second) {
      throw store::ConstraintError("column \"" + column.name + "\" is defined twice");
    }
  }
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
  Id next_id = 1;
  std::vector<ColumnRecord> records;
  for (const auto& column : columns) {
    AddColumnTree(*working_.Table(table.table_id()), kTopLevel, column, next_id, records);
  }
  rows_.Insert(kTableTable, table);
  for (const auto& record : records) PutColumn(record);
  table.set_next_column_id(static_cast<uint64_t>(next_id));
  working_.PutTable(table);
  committed_next_column_id_[table.table_id()] = 1;

  schema_changed_tables_.insert(table.table_id());
  reshaped_tables_.insert(table.table_id());
  created_tables_.insert(table.table_id());
  NoteChange("created_table:" + QuoteIdentifier(schema_name) + "." + QuoteIdentifier(name));
  return table.table_id();
}

void Transaction::DropTable(const std::string& schema_name, const std::string& name) {
  const TableState table = RequireTableNamed(schema_name, name);
  rows_.End(kTableTable, table.record, snapshot_id_);
  rows_.EndAllWithKey(kColumnTable, table.id(), snapshot_id_);
  for (std::string_view dependent : kDroppedWithTable) {
    rows_.EndAllWithKey(dependent, table.id(), snapshot_id_);
  }
  working_.EraseTable(table.id());
  schema_changed_tables_.erase(table.id());
  reshaped_tables_.erase(table.id());
  if (created_tables_.erase(table.id())) {
    // Created and dropped in this transaction: DuckLake writes nothing of it
    // (no snapshot at all if that was all the transaction did).
    ForgetChange("created_table:" + QuoteIdentifier(schema_name) + "." + QuoteIdentifier(name));
    ForgetChange("inserted_into_table:" + std::to_string(table.id()));
    catalog::TableStatsRecord stats;
    stats.set_table_id(table.id());
    rows_.Remove(kTableStatsTable, stats);
  } else {
    NoteChange("dropped_table:" + std::to_string(table.id()));
    schema_changed_ = true;
  }
}

void Transaction::RenameTable(const std::string& schema_name, const std::string& name,
                              const std::string& new_name) {
  const TableRecord old = RequireTableNamed(schema_name, name).record;
  RequireFreeTableName(RequireSchema(schema_name), new_name);
  // DuckLake ends the table's row and writes the renamed table as a new one
  // with the same id, uuid and path (DropTables(renamed) + WriteNewTables).
  rows_.End(kTableTable, old, snapshot_id_);
  TableRecord renamed = old;
  renamed.set_table_name(new_name);
  renamed.set_begin_snapshot(snapshot_id_);
  renamed.clear_end_snapshot();
  rows_.Insert(kTableTable, renamed);
  working_.PutTable(renamed);
  schema_changed_tables_.insert(renamed.table_id());
  reshaped_tables_.insert(renamed.table_id());
  if (!created_tables_.count(renamed.table_id())) schema_changed_ = true;
  ForgetChange("created_table:" + QuoteIdentifier(schema_name) + "." + QuoteIdentifier(name));
  NoteChange("created_table:" + QuoteIdentifier(schema_name) + "." + QuoteIdentifier(new_name));
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
  // DuckLake gives nested roots an empty default_value_type.
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

  // DuckLake: MAX(column_id) over every version of the table's columns + 1
  // (GetNextColumnId), which the state keeps as next_column_id.
  const Id counter =
      table.record.has_next_column_id() ? static_cast<Id>(table.record.next_column_id()) : 0;
  Id next_id = std::max(counter, table.MaxColumnId() + 1);
  committed_next_column_id_.emplace(table_id, counter);
  std::vector<ColumnRecord> records;
  AddColumnTree(table, parent, column, next_id, records);
  // DuckLake writes a field added to a struct as NOT NULL (observed:
  // ALTER TABLE t ADD COLUMN s.f BIGINT writes nulls_allowed = false).
  if (parent != kTopLevel) records.front().set_nulls_allowed(false);
  for (const auto& record : records) PutColumn(record);
  TouchColumn(records.front());

  TableRecord updated = working_.Table(table_id)->record;
  updated.set_next_column_id(static_cast<uint64_t>(next_id));
  working_.PutTable(updated);
  AlterTableSchema(table_id);
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
  TouchColumn(column);
  // The whole subtree ends in this snapshot: a field whose parent is gone is
  // not a column anyone can name.
  for (Id id : table.Subtree(column.column_id())) {
    const ColumnRecord victim = *working_.Table(table_id)->FindColumn(id);
    EndColumn(victim);
  }
  AlterTableSchema(table_id);
}

void Transaction::RenameColumn(Id table_id, const ColumnPath& path, const std::string& new_name) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  if (column.column_name() == new_name) return;
  RequireUniqueColumnName(RequireTable(table_id), catalog::ParentOf(column), new_name);
  ColumnRecord renamed = column;
  renamed.set_column_name(new_name);
  if (column.has_parent_column()) {
    // DuckLake rewrites a renamed struct field as NOT NULL with an empty
    // default_value_type (observed: RENAME COLUMN s.a TO b).
    renamed.set_nulls_allowed(false);
    renamed.set_default_value_type("");
  } else {
    renamed.set_default_value_type(kRewrittenValueType);
  }
  TouchColumn(column);
  ReplaceColumn(column, renamed);
}

void Transaction::ChangeColumnType(Id table_id, const ColumnPath& path,
                                   const std::string& new_type) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  if (new_type.empty()) throw store::InvalidArgumentError("a column type may not be empty");
  if (column.column_type() == new_type) return;
  ColumnRecord promoted = column;
  promoted.set_column_type(new_type);
  promoted.set_default_value_type(kRewrittenValueType);
  TouchColumn(column);
  ReplaceColumn(column, promoted);
}

void Transaction::SetColumnDefault(Id table_id, const ColumnPath& path,
                                   const std::string& literal) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  ColumnRecord updated = column;
  updated.set_default_value(literal);
  updated.set_default_value_type(kRewrittenValueType);
  ReplaceColumn(column, updated, /*reshapes=*/false);
}

void Transaction::DropColumnDefault(Id table_id, const ColumnPath& path) {
  const ColumnRecord& column = RequireColumn(table_id, path);
  ColumnRecord updated = column;
  updated.set_default_value(kNoDefault);
  updated.set_default_value_type(kRewrittenValueType);
  ReplaceColumn(column, updated, /*reshapes=*/false);
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

  // The table's stats as this transaction sees them: its rows get the next
  // row ids, and the stats grow by the file (UpdateGlobalTableStatsSql).
  catalog::TableStatsRecord stats;
  stats.set_table_id(table_id);
  if (auto found = rows_.Find(kTableStatsTable, stats)) {
    stats.CopyFrom(*found);
  } else {
    stats.set_record_count(0);
    stats.set_next_row_id(0);
    stats.set_file_size_bytes(0);
  }

  catalog::DataFileRecord file;
  file.set_data_file_id(file_id);
  file.set_table_id(table_id);
  file.set_begin_snapshot(snapshot_id_);
  file.set_path(path);
  file.set_path_is_relative(false);
  file.set_file_format("parquet");
  file.set_record_count(record_count);
  file.set_file_size_bytes(file_size_bytes);
  file.set_row_id_start(stats.next_row_id());
  rows_.Insert(kDataFileTable, file);
  working_.PutDataFile(file);

  stats.set_record_count(stats.record_count() + record_count);
  stats.set_next_row_id(stats.next_row_id() + record_count);
  stats.set_file_size_bytes(stats.file_size_bytes() + file_size_bytes);
  rows_.Upsert(kTableStatsTable, stats);
  NoteChange("inserted_into_table:" + std::to_string(table_id));
  return file_id;
}

// ---------------------------------------------------------------------------
// The snapshot

void Transaction::StageSnapshot(int64_t snapshot_time_micros) {
  // The counter as DuckLake reads it after this commit: MAX(column_id) over
  // committed versions + 1. An id issued and dropped again in this
  // transaction is never written, so it is issued again later.
  for (const auto& [table_id, committed] : committed_next_column_id_) {
    const TableState* table = working_.Table(table_id);
    if (!table) continue;
    TableRecord record = table->record;
    record.set_next_column_id(static_cast<uint64_t>(std::max(committed, table->MaxColumnId() + 1)));
    working_.PutTable(record);
  }
  auto& snapshot = working_.mutable_snapshot();
  snapshot.set_snapshot_id(snapshot_id_);
  snapshot.set_snapshot_time(snapshot_time_micros);
  // A table created here (and not dropped again) is a schema change too.
  const bool schema_changed = schema_changed_ || !created_tables_.empty();
  snapshot.set_schema_version(base_schema_version_ + (schema_changed ? 1 : 0));
  snapshot.set_changes_made(ChangesMade(changes_));
  // DuckLake writes author, message and extra info NULL unless the session
  // set them (ducklake_set_commit_message); the verbs set none.
  snapshot.clear_author();
  snapshot.clear_commit_message();
  snapshot.clear_commit_extra_info();
  rows_.Insert(kSnapshotTable, snapshot);
  rows_.Insert(kChangesTable, snapshot);
  for (Id table : schema_changed_tables_) {
    if (!working_.Table(table)) continue;  // dropped again in this transaction
    // DuckLake declares a new inlined data table for the new schema version
    // of a table whose columns changed shape (WriteNewInlinedTables; a new
    // default keeps the inlined table). Its shape is staged first: it reads
    // the table's last schema version before this one's row.
    if (reshaped_tables_.count(table)) StageInlinedDataTable(table, snapshot.schema_version());
    catalog::SchemaVersionRecord version;
    version.set_begin_snapshot(snapshot_id_);
    version.set_schema_version(snapshot.schema_version());
    version.set_table_id(table);
    rows_.Insert(kSchemaVersionsTable, version);
  }
}

void Transaction::TouchColumn(const ColumnRecord& column) {
  const TableState& table = *working_.Table(column.table_id());
  const ColumnRecord* top = &column;
  while (top->has_parent_column()) {
    top = table.FindColumn(top->parent_column());
    if (!top) {
      throw store::CorruptionError("column " + std::to_string(column.column_id()) + " of table " +
                                   std::to_string(column.table_id()) + " has no live parent");
    }
  }
  touched_columns_[column.table_id()].insert(top->column_id());
}

std::optional<std::vector<inlined::ShapeChange>> Transaction::ShapeChanges(Id table_id) const {
  std::vector<inlined::ShapeChange> changes;
  const auto touched = touched_columns_.find(table_id);
  if (touched == touched_columns_.end()) return changes;
  const TableState* before = base_.Table(table_id);
  const TableState& after = *working_.Table(table_id);
  for (Id id : touched->second) {
    const ColumnRecord* old_column = before ? before->FindColumn(id) : nullptr;
    const ColumnRecord* new_column = after.FindColumn(id);
    const auto key = [](const ColumnRecord& column) {
      return inlined::ShapeKey{column.column_order(), column.column_id()};
    };
    if (old_column && (!new_column || key(*old_column) != key(*new_column))) {
      changes.push_back({key(*old_column), true, std::nullopt});
    }
    if (new_column) {
      auto declared = InlinedDataColumn(after, *new_column);
      if (!declared) return std::nullopt;
      const bool same_key = old_column && key(*old_column) == key(*new_column);
      changes.push_back({key(*new_column), same_key, std::move(*declared)});
    }
  }
  return changes;
}

void Transaction::StageInlinedDataTable(Id table_id, Id schema_version) {
  const TableState& table = *working_.Table(table_id);
  if (!InliningEnabled(table)) return;
  const auto changes = ShapeChanges(table_id);
  if (!changes) return;  // DuckLake would not inline the table
  const catalog::InlinedTableName name{catalog::InlinedTableName::kData, table_id, schema_version};
  if (!rows_.CreateChangedInlinedTable(name, *changes, [&] { return InlinedDataColumns(table); })) {
    return;
  }
  catalog::InlinedDataTableRecord inlined;
  inlined.set_table_id(table_id);
  inlined.set_table_name(catalog::InlinedDataTableName(table_id, schema_version));
  inlined.set_schema_version(schema_version);
  rows_.Insert(kInlinedDataTablesTable, inlined);
}

}  // namespace moraine::commit
