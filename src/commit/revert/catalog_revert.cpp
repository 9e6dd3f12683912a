#include "commit/revert/catalog_revert.h"

#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "catalog/ducklake_tables.h"
#include "commit/rows/inlined_table_spec.h"
#include "commit/verbs/catalog_state_rows.h"
#include "store/error.h"
#include "util/strings.h"
#include "util/wall_clock.h"

namespace moraine::commit::revert {
namespace {

using catalog::InlinedTableName;

// A row of one table with its columns found by name.
class Columns {
 public:
  Columns(RowTransaction& rows, std::string_view table) : table_(table) {
    const auto spec = rows.FindTable(table);
    if (!spec) throw store::NotFoundError("no table " + table_ + " in this catalog");
    spec_ = *spec;
  }
  std::optional<size_t> Find(std::string_view name) const {
    for (size_t i = 0; i < spec_.columns.size(); ++i) {
      if (spec_.columns[i].name == name) return i;
    }
    return std::nullopt;
  }
  size_t At(std::string_view name) const {
    if (auto at = Find(name)) return *at;
    throw store::CorruptionError("table " + table_ + " has no column " + std::string(name));
  }
  std::optional<int64_t> Int(const Row& row, std::string_view name) const {
    const auto* value = std::get_if<int64_t>(&row[At(name)]);
    return value ? std::optional<int64_t>(*value) : std::nullopt;
  }
  std::string Text(const Row& row, std::string_view name) const {
    const auto* value = std::get_if<std::string>(&row[At(name)]);
    return value ? *value : std::string();
  }
  Row Empty() const { return Row(spec_.columns.size()); }

 private:
  std::string table_;
  TableSpec spec_;
};

// Where a version lives in time, against the revert's target and the head.
struct Lifetime {
  bool at_target = false;  // live at the snapshot reverted to
  bool at_head = false;    // unended
};

Lifetime LifetimeOf(const Columns& columns, const Row& row, int64_t target) {
  const auto begin = columns.Int(row, "begin_snapshot");
  const auto end = columns.Int(row, "end_snapshot");
  Lifetime lifetime;
  lifetime.at_head = !end.has_value();
  lifetime.at_target = begin && *begin <= target && (!end || *end > target);
  return lifetime;
}

// A name as DuckLake writes it in changes_made: a quoted identifier.
std::string Quoted(const std::string& name) { return util::SqlQuoted(name, '"'); }

// A path DuckLake stores relative to `base` when `relative` (a directory path
// ends in a separator, as DuckLake writes it).
std::string Joined(const std::string& base, const std::string& path, bool relative) {
  return relative ? base + path : path;
}

class RevertPlanner {
 public:
  RevertPlanner(RowTransaction& rows, const RevertRequest& request)
      : rows_(rows), request_(request) {}

  RevertOutcome Stage() {
    const auto head = rows_.LatestSnapshot();
    if (!head) {
      throw store::InvalidArgumentError(
          "the store holds no DuckLake catalog yet; attach it with DuckLake first");
    }
    head_ = *head;
    target_ = request_.as_of;
    const auto target = rows_.SnapshotAt(target_);
    if (target_ > head_.snapshot_id || !target) {
      throw store::NotFoundError("snapshot " + std::to_string(target_) +
                                 " does not exist in this lake (never taken, or expired; the "
                                 "newest is " +
                                 std::to_string(head_.snapshot_id) + "), so nothing was reverted");
    }
    target_next_file_id_ = target->next_file_id;
    snapshot_ = head_.snapshot_id + 1;
    next_file_id_ = head_.next_file_id;

    ReadLocations();
    PlanVersionedRows();
    PlanFiles();
    PlanInlinedRows();

    RevertOutcome outcome;
    outcome.snapshot_id = head_.snapshot_id;
    if (ends_.empty() && inserts_.empty()) return outcome;
    // DuckLake caches a catalog by its schema version: any change it loads
    // with the catalog (a comment too) needs a new one.
    const bool schema_changed = !schema_changed_tables_.empty() || !changed_schemas_.empty() ||
                                !changed_views_.empty() || !changed_macros_.empty() ||
                                !tagged_objects_.empty();
    const int64_t schema_version = head_.schema_version + (schema_changed ? 1 : 0);
    PlanNewSchemaVersion(schema_version);
    // Ends first: a version that comes back may share its identity with one
    // ending now (a rename undone), and the store keeps one live version.
    for (auto& [table, handle, row] : ends_) rows_.Update(table, handle, row);
    for (const auto& action : creates_) rows_.CreateTable(action);
    for (const auto& [table, row] : inserts_) rows_.Insert(table, row);
    StageSnapshot(schema_version);
    RevertMark mark;
    mark.snapshot_id = snapshot_;
    mark.as_of_snapshot = target_;
    mark.table_id = request_.table_id;
    mark.revived_files = revived_files_;
    rows_.StageRevertMark(mark);

    outcome.snapshot_id = snapshot_;
    outcome.staged = true;
    outcome.ended_versions = static_cast<int64_t>(ends_.size());
    outcome.revived_versions = revived_versions_;
    outcome.revived_file_paths = revived_paths_;
    return outcome;
  }

 private:
  struct Ending {
    std::string table;
    RowHandle handle;
    Row row;
  };

  bool InScope(std::optional<int64_t> table_id) const {
    return !request_.table_id || table_id == request_.table_id;
  }

  std::vector<ColumnBound> ScopeBounds(const Columns& columns, std::string_view column) const {
    if (!request_.table_id) return {};
    return {ColumnBound{
        .column = columns.At(column), .lower = *request_.table_id, .upper = *request_.table_id}};
  }

  void End(std::string_view table, const Columns& columns, RowHandle handle, Row row) {
    row[columns.At("end_snapshot")] = Cell{snapshot_};
    ends_.push_back({std::string(table), handle, std::move(row)});
  }

  void Revive(std::string_view table, const Columns& columns, Row row) {
    row[columns.At("begin_snapshot")] = Cell{snapshot_};
    row[columns.At("end_snapshot")] = Cell{};
    inserts_.emplace_back(std::string(table), std::move(row));
    ++revived_versions_;
  }

  // The paths files are joined onto: the data path, each schema's and each
  // table's as of the target.
  void ReadLocations() {
    Columns metadata(rows_, "ducklake_metadata");
    rows_.Scan("ducklake_metadata", {}, [&](RowHandle, const Row& row) {
      if (metadata.Text(row, "key") == "data_path" && IsNull(row[metadata.At("scope")])) {
        data_path_ = metadata.Text(row, "value");
      }
    });
    Columns schemas(rows_, "ducklake_schema");
    rows_.Scan("ducklake_schema", {}, [&](RowHandle, const Row& row) {
      if (!LifetimeOf(schemas, row, target_).at_target) return;
      const auto relative = std::get_if<bool>(&row[schemas.At("path_is_relative")]);
      schema_paths_[*schemas.Int(row, "schema_id")] =
          Joined(data_path_, schemas.Text(row, "path"), relative && *relative);
      schema_names_[*schemas.Int(row, "schema_id")] = schemas.Text(row, "schema_name");
    });
    Columns tables(rows_, "ducklake_table");
    rows_.Scan("ducklake_table", ScopeBounds(tables, "table_id"), [&](RowHandle, const Row& row) {
      if (!LifetimeOf(tables, row, target_).at_target) return;
      const auto relative = std::get_if<bool>(&row[tables.At("path_is_relative")]);
      const int64_t schema = tables.Int(row, "schema_id").value_or(-1);
      table_paths_[*tables.Int(row, "table_id")] =
          Joined(schema_paths_[schema], tables.Text(row, "path"), relative && *relative);
    });
  }

  // The versioned tables whose rows keep their ids, by the column that names
  // the DuckLake table a row belongs to ("" for rows of no table).
  void PlanVersionedRows() {
    static const std::pair<const char*, const char*> kVersioned[] = {
        {"ducklake_schema", ""},
        {"ducklake_table", "table_id"},
        {"ducklake_view", ""},
        {"ducklake_tag", "object_id"},
        {"ducklake_column_tag", "table_id"},
        {"ducklake_column", "table_id"},
        {"ducklake_partition_info", "table_id"},
        {"ducklake_macro", ""},
        {"ducklake_sort_info", "table_id"},
        {"ducklake_view_column_tag", ""}};
    for (const auto& [table, owner] : kVersioned) {
      if (!rows_.FindTable(table)) continue;  // ducklake_view_column_tag: catalog 1.1 only
      const std::string_view owner_column = owner;
      if (request_.table_id && owner_column.empty()) continue;
      Columns columns(rows_, table);
      std::vector<std::pair<RowHandle, Row>> ending;
      std::vector<Row> reviving;
      const auto bounds = owner_column.empty() || owner_column == "object_id"
                              ? std::vector<ColumnBound>{}
                              : ScopeBounds(columns, owner_column);
      rows_.Scan(table, bounds, [&](RowHandle handle, const Row& row) {
        const std::optional<int64_t> owner_id =
            owner_column.empty() ? std::nullopt : columns.Int(row, owner_column);
        if (!owner_column.empty() && !InScope(owner_id)) return;
        const Lifetime lifetime = LifetimeOf(columns, row, target_);
        if (lifetime.at_head == lifetime.at_target) return;
        Note(table, columns, row, lifetime.at_target);
        if (lifetime.at_head) {
          ending.emplace_back(handle, row);
        } else {
          reviving.push_back(row);
        }
      });
      for (auto& [handle, row] : ending) End(table, columns, handle, std::move(row));
      for (auto& row : reviving) Revive(table, columns, std::move(row));
    }
  }

  // Records what a changed version says for the snapshot's changes_made.
  void Note(std::string_view table, const Columns& columns, const Row& row, bool comes_back) {
    if (table == "ducklake_schema") {
      const int64_t id = *columns.Int(row, "schema_id");
      changed_schemas_[id].first |= !comes_back;
      changed_schemas_[id].second |= comes_back;
      if (comes_back) schema_names_[id] = columns.Text(row, "schema_name");
    } else if (table == "ducklake_table") {
      const int64_t id = *columns.Int(row, "table_id");
      schema_changed_tables_.insert(id);
      auto& change = changed_tables_[id];
      change.first |= !comes_back;
      change.second |= comes_back;
      if (comes_back) {
        table_names_[id] = {columns.Int(row, "schema_id").value_or(-1),
                            columns.Text(row, "table_name")};
      }
    } else if (table == "ducklake_view" || table == "ducklake_view_column_tag") {
      const int64_t id = *columns.Int(row, "view_id");
      changed_views_[id].first |= !comes_back && table == "ducklake_view";
      changed_views_[id].second |= comes_back && table == "ducklake_view";
      if (comes_back && table == "ducklake_view") {
        view_names_[id] = {columns.Int(row, "schema_id").value_or(-1),
                           columns.Text(row, "view_name")};
      }
    } else if (table == "ducklake_macro") {
      changed_macros_.insert(*columns.Int(row, "macro_id"));
    } else if (table == "ducklake_tag") {
      // A tag (a comment) of a table, view or schema: an ALTER of its object.
      const int64_t id = *columns.Int(row, "object_id");
      tagged_objects_.insert(id);
    } else if (auto id = columns.Find("table_id")) {
      if (const auto* table_id = std::get_if<int64_t>(&row[*id])) {
        schema_changed_tables_.insert(*table_id);
      }
    }
  }

  // Data files, their delete files and inlined deletions, and what is copied
  // to a file brought back under a new id.
  void PlanFiles() {
    Columns deletes(rows_, "ducklake_delete_file");
    std::map<int64_t, std::vector<std::pair<RowHandle, Row>>> deletes_of;
    std::set<int64_t> deletions_changed;  // data files whose deletions differ from the target's
    rows_.Scan("ducklake_delete_file", ScopeBounds(deletes, "table_id"),
               [&](RowHandle handle, const Row& row) {
                 if (!InScope(deletes.Int(row, "table_id"))) return;
                 const int64_t data_file = deletes.Int(row, "data_file_id").value_or(-1);
                 const Lifetime lifetime = LifetimeOf(deletes, row, target_);
                 if (lifetime.at_head != lifetime.at_target ||
                     HoldsLaterRows(deletes, row, "delete_file_id")) {
                   deletions_changed.insert(data_file);
                 }
                 deletes_of[data_file].emplace_back(handle, row);
               });
    // Inlined deletions of Parquet rows carry no end: one made after the
    // target can only be undone by bringing the file back without it.
    std::map<int64_t, std::vector<int64_t>> inlined_deletions_of;  // file -> rows, by the target
    for (const auto& name : rows_.TableNames()) {
      const auto parsed = catalog::ParseInlinedTableName(name);
      if (!parsed || parsed->kind != InlinedTableName::kDelete || !InScope(parsed->table_id)) {
        continue;
      }
      Columns columns(rows_, name);
      rows_.Scan(name, {}, [&](RowHandle, const Row& row) {
        const int64_t file = columns.Int(row, "file_id").value_or(-1);
        const int64_t begin = columns.Int(row, "begin_snapshot").value_or(0);
        if (begin > target_) {
          deletions_changed.insert(file);
        } else {
          inlined_deletions_of[file].push_back(columns.Int(row, "row_id").value_or(-1));
        }
      });
    }

    Columns data(rows_, "ducklake_data_file");
    std::vector<std::pair<RowHandle, Row>> ending;
    std::vector<Row> reviving;
    rows_.Scan("ducklake_data_file", ScopeBounds(data, "table_id"),
               [&](RowHandle handle, const Row& row) {
                 if (!InScope(data.Int(row, "table_id"))) return;
                 const int64_t id = *data.Int(row, "data_file_id");
                 const Lifetime lifetime = LifetimeOf(data, row, target_);
                 const bool changed =
                     lifetime.at_target && lifetime.at_head &&
                     (deletions_changed.count(id) > 0 || HoldsLaterRows(data, row, "data_file_id"));
                 if (lifetime.at_head && (!lifetime.at_target || changed)) {
                   ending.emplace_back(handle, row);
                 }
                 if (lifetime.at_target && (!lifetime.at_head || changed)) reviving.push_back(row);
               });
    for (auto& [handle, row] : ending) {
      const int64_t id = *data.Int(row, "data_file_id");
      data_changed_tables_.insert(*data.Int(row, "table_id"));
      for (auto& [delete_handle, delete_row] : deletes_of[id]) {
        if (LifetimeOf(deletes, delete_row, target_).at_head) {
          End("ducklake_delete_file", deletes, delete_handle, delete_row);
        }
      }
      End("ducklake_data_file", data, handle, std::move(row));
    }
    for (Row& row : reviving) {
      const int64_t old_id = *data.Int(row, "data_file_id");
      const int64_t table_id = *data.Int(row, "table_id");
      const int64_t new_id = next_file_id_++;
      data_changed_tables_.insert(table_id);
      revived_files_.push_back({old_id, new_id, table_id, false});
      revived_paths_.push_back(FilePath(data, row, table_id));
      CopyFileRows(table_id, old_id, new_id);
      if (HoldsLaterRows(data, row, "data_file_id")) {
        const std::string path = FilePath(data, row, table_id);
        InlineDeletions(table_id, new_id, ReadPartial(data, row, path, false));
      }
      for (auto& [unused, delete_row] : deletes_of[old_id]) {
        if (!LifetimeOf(deletes, delete_row, target_).at_target) continue;
        if (HoldsLaterRows(deletes, delete_row, "delete_file_id")) {
          const std::string path = FilePath(deletes, delete_row, table_id);
          InlineDeletions(table_id, new_id, ReadPartial(deletes, delete_row, path, true));
          continue;
        }
        Row copy = delete_row;
        const int64_t old_delete = *deletes.Int(copy, "delete_file_id");
        const int64_t new_delete = next_file_id_++;
        copy[deletes.At("delete_file_id")] = Cell{new_delete};
        copy[deletes.At("data_file_id")] = Cell{new_id};
        revived_files_.push_back({old_delete, new_delete, table_id, true});
        revived_paths_.push_back(FilePath(deletes, copy, table_id));
        Revive("ducklake_delete_file", deletes, std::move(copy));
      }
      InlineDeletions(table_id, new_id, inlined_deletions_of[old_id]);
      row[data.At("data_file_id")] = Cell{new_id};
      Revive("ducklake_data_file", data, std::move(row));
    }
  }

  // Whether a file row live at the target holds rows of later snapshots too:
  // DuckLake's partial_max says so of a compaction's or a flush's data file;
  // a file written after the target (its id allocated since) yet live at it
  // was back-dated to its oldest row, as a flush's delete file or a delete
  // file that took over an earlier one's deletions is, without partial_max.
  bool HoldsLaterRows(const Columns& columns, const Row& row, std::string_view id_column) const {
    if (!LifetimeOf(columns, row, target_).at_target) return false;
    const auto partial_max = columns.Int(row, "partial_max");
    return (partial_max && *partial_max > target_) ||
           columns.Int(row, id_column).value_or(0) >= target_next_file_id_;
  }

  // The rows a partial file (HoldsLaterRows) must lose at the new snapshot:
  // a data file's rows of later snapshots, or the rows a delete file
  // deleted by the target (`deletions`).
  std::vector<int64_t> ReadPartial(const Columns& columns, const Row& row, const std::string& path,
                                   bool deletions) {
    const auto& read =
        deletions ? request_.partial_files.deleted_up_to : request_.partial_files.rows_after;
    if (!read || !IsNull(row[columns.At("encryption_key")])) {
      throw store::ConstraintError(
          "the file " + path + " holds rows of snapshot " + std::to_string(target_) +
          " merged with rows of later snapshots (by a compaction, a flush of inlined data or a "
          "delete after it) and cannot be read here, so its catalog cannot come back; nothing "
          "was reverted");
    }
    return read(path, target_);
  }

  // Deletions of `positions` in the data file `data_file` of `table_id` from
  // the new snapshot on, in the table's inlined deletion table (made if it
  // has none), where DuckLake merges them with the file's delete files.
  void InlineDeletions(int64_t table_id, int64_t data_file, const std::vector<int64_t>& positions) {
    if (positions.empty()) return;
    const std::string table = catalog::InlinedDeleteTableName(table_id);
    if (!rows_.FindTable(table) && !created_delete_tables_.count(table)) {
      TableSpec spec{table, {}, {}};
      for (const auto& column : catalog::InlinedDeleteColumns()) {
        spec.columns.push_back({std::string(column.name), "BIGINT", column.nullable});
      }
      creates_.push_back(spec);
      created_delete_tables_.insert(table);
    }
    for (int64_t position : positions) {
      inserts_.emplace_back(table, Row{Cell{data_file}, Cell{position}, Cell{snapshot_}});
    }
  }

  std::string FilePath(const Columns& columns, const Row& row, int64_t table_id) {
    const auto relative = std::get_if<bool>(&row[columns.At("path_is_relative")]);
    return Joined(table_paths_[table_id], columns.Text(row, "path"), relative && *relative);
  }

  // The rows keyed by a data file's id (its column stats, variant stats and
  // partition values), copied to the id it comes back under.
  void CopyFileRows(int64_t table_id, int64_t old_id, int64_t new_id) {
    for (const char* table : {"ducklake_file_column_stats", "ducklake_file_variant_stats",
                              "ducklake_file_partition_value"}) {
      if (!rows_.FindTable(table)) continue;
      Columns columns(rows_, table);
      std::vector<Row> copies;
      rows_.Scan(
          table,
          {ColumnBound{.column = columns.At("table_id"), .lower = table_id, .upper = table_id},
           ColumnBound{.column = columns.At("data_file_id"), .lower = old_id, .upper = old_id}},
          [&](RowHandle, const Row& row) {
            if (columns.Int(row, "data_file_id") != old_id) return;
            if (columns.Int(row, "table_id") != table_id) return;
            Row copy = row;
            copy[columns.At("data_file_id")] = Cell{new_id};
            copies.push_back(std::move(copy));
          });
      for (Row& copy : copies) inserts_.emplace_back(table, std::move(copy));
    }
  }

  // Rows of the per-table inlined data tables: each keeps its row id.
  void PlanInlinedRows() {
    for (const auto& name : rows_.TableNames()) {
      const auto parsed = catalog::ParseInlinedTableName(name);
      if (!parsed || parsed->kind != InlinedTableName::kData || !InScope(parsed->table_id)) {
        continue;
      }
      Columns columns(rows_, name);
      std::vector<std::pair<RowHandle, Row>> ending;
      std::vector<Row> reviving;
      rows_.Scan(name, {}, [&](RowHandle handle, const Row& row) {
        const Lifetime lifetime = LifetimeOf(columns, row, target_);
        if (lifetime.at_head == lifetime.at_target) return;
        if (lifetime.at_head) {
          ending.emplace_back(handle, row);
        } else {
          reviving.push_back(row);
        }
      });
      if (!ending.empty() || !reviving.empty()) data_changed_tables_.insert(parsed->table_id);
      for (auto& [handle, row] : ending) End(name, columns, handle, std::move(row));
      for (auto& row : reviving) Revive(name, columns, std::move(row));
    }
  }

  // A table whose columns change gets a row in ducklake_schema_versions at
  // the new schema version and, if it inlines rows, a new inlined data table
  // in the columns it had at the target, which DuckLake's next inlined insert
  // picks (it writes to the table's newest one), as DuckLake's own ALTER does.
  void PlanNewSchemaVersion(int64_t schema_version) {
    if (schema_version == head_.schema_version) return;
    Columns registry(rows_, "ducklake_inlined_data_tables");
    std::set<int64_t> inlining;  // tables with an inlined data table
    rows_.Scan("ducklake_inlined_data_tables", {}, [&](RowHandle, const Row& row) {
      inlining.insert(registry.Int(row, "table_id").value_or(-1));
    });
    Columns versions(rows_, "ducklake_schema_versions");
    std::optional<catalog::CatalogState> at_target;  // read once, if a table needs it
    for (int64_t table_id : schema_changed_tables_) {
      if (!table_paths_.count(table_id)) continue;  // not a table at the target
      Row version = versions.Empty();
      version[versions.At("begin_snapshot")] = Cell{snapshot_};
      version[versions.At("schema_version")] = Cell{schema_version};
      version[versions.At("table_id")] = Cell{table_id};
      inserts_.emplace_back("ducklake_schema_versions", std::move(version));
      if (!inlining.count(table_id)) continue;  // DuckLake makes one at its first insert
      if (!at_target) at_target = ReadCatalogState(rows_, target_);
      const catalog::TableState* table = at_target->Table(table_id);
      if (!table) continue;
      auto spec = InlinedDataTableSpec(*table, schema_version);
      if (!spec) continue;  // DuckLake would not inline it
      creates_.push_back(*spec);
      Row registered = registry.Empty();
      registered[registry.At("table_id")] = Cell{table_id};
      registered[registry.At("table_name")] = Cell{spec->name};
      registered[registry.At("schema_version")] = Cell{schema_version};
      inserts_.emplace_back("ducklake_inlined_data_tables", std::move(registered));
    }
  }

  void StageSnapshot(int64_t schema_version) {
    Columns snapshots(rows_, "ducklake_snapshot");
    Row snapshot = snapshots.Empty();
    snapshot[snapshots.At("snapshot_id")] = Cell{snapshot_};
    snapshot[snapshots.At("snapshot_time")] = Cell{util::NowMicros()};
    snapshot[snapshots.At("schema_version")] = Cell{schema_version};
    snapshot[snapshots.At("next_catalog_id")] = Cell{head_.next_catalog_id};
    snapshot[snapshots.At("next_file_id")] = Cell{next_file_id_};
    rows_.Insert("ducklake_snapshot", snapshot);

    Columns changes(rows_, "ducklake_snapshot_changes");
    Row change = changes.Empty();
    change[changes.At("snapshot_id")] = Cell{snapshot_};
    change[changes.At("changes_made")] = Cell{ChangesMade()};
    change[changes.At("commit_message")] = Cell{request_.commit_message};
    rows_.Insert("ducklake_snapshot_changes", change);
  }

  // DuckLake's own words for what changed, so its conflict check and
  // snapshots() read the revert as they read any commit: a table that comes
  // back is created, one that goes is dropped, one whose columns or tags
  // change is altered, and one whose rows change is inserted into and deleted
  // from.
  std::string ChangesMade() const {
    std::vector<std::string> entries;
    const auto qualified = [&](const std::pair<int64_t, std::string>& name) {
      const auto schema = schema_names_.find(name.first);
      return Quoted(schema == schema_names_.end() ? std::string() : schema->second) + "." +
             Quoted(name.second);
    };
    for (const auto& [id, change] : changed_schemas_) {
      if (change.first && !change.second) entries.push_back("dropped_schema:" + std::to_string(id));
      if (change.second && !change.first) {
        entries.push_back("created_schema:" + Quoted(schema_names_.at(id)));
      }
    }
    std::set<int64_t> altered = schema_changed_tables_;
    for (int64_t id : tagged_objects_) {
      if (table_paths_.count(id)) altered.insert(id);
    }
    for (const auto& [id, change] : changed_tables_) {
      if (change.first && !change.second) {
        entries.push_back("dropped_table:" + std::to_string(id));
        altered.erase(id);
      } else if (change.second && !change.first) {
        entries.push_back("created_table:" + qualified(table_names_.at(id)));
        altered.erase(id);
      }
    }
    for (int64_t id : altered) {
      if (table_paths_.count(id)) entries.push_back("altered_table:" + std::to_string(id));
    }
    for (int64_t id : data_changed_tables_) {
      if (!table_paths_.count(id) || changed_tables_.count(id)) continue;
      entries.push_back("inserted_into_table:" + std::to_string(id));
      entries.push_back("deleted_from_table:" + std::to_string(id));
    }
    for (const auto& [id, change] : changed_views_) {
      if (change.first && !change.second) {
        entries.push_back("dropped_view:" + std::to_string(id));
      } else if (change.second && !change.first) {
        entries.push_back("created_view:" + qualified(view_names_.at(id)));
      } else {
        entries.push_back("altered_view:" + std::to_string(id));
      }
    }
    std::string joined;
    for (const auto& entry : entries) joined += (joined.empty() ? "" : ",") + entry;
    return joined;
  }

  RowTransaction& rows_;
  const RevertRequest& request_;
  SnapshotCounters head_;
  int64_t target_ = 0;
  int64_t target_next_file_id_ = 0;
  int64_t snapshot_ = 0;
  int64_t next_file_id_ = 0;

  std::string data_path_;
  std::map<int64_t, std::string> schema_paths_;  // live at the target
  std::map<int64_t, std::string> schema_names_;
  std::map<int64_t, std::string> table_paths_;  // live at the target

  std::vector<Ending> ends_;
  std::vector<std::pair<std::string, Row>> inserts_;
  std::vector<TableSpec> creates_;
  std::set<std::string> created_delete_tables_;
  int64_t revived_versions_ = 0;
  std::vector<RevivedFile> revived_files_;
  std::vector<std::string> revived_paths_;

  // Per id: (a version ends, a version comes back).
  std::map<int64_t, std::pair<bool, bool>> changed_schemas_;
  std::map<int64_t, std::pair<bool, bool>> changed_tables_;
  std::map<int64_t, std::pair<bool, bool>> changed_views_;
  std::map<int64_t, std::pair<int64_t, std::string>> table_names_;  // schema id, name
  std::map<int64_t, std::pair<int64_t, std::string>> view_names_;
  std::set<int64_t> changed_macros_;
  std::set<int64_t> tagged_objects_;
  std::set<int64_t> schema_changed_tables_;
  std::set<int64_t> data_changed_tables_;
};

}  // namespace

RevertOutcome StageRevert(RowTransaction& rows, const RevertRequest& request) {
  return RevertPlanner(rows, request).Stage();
}

}  // namespace moraine::commit::revert
