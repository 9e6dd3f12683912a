#include "tools/column_lineage.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "catalog/catalog_state.h"
#include "catalog/record_io.h"
#include "store/error.h"
#include "tools/table_lookup.h"

namespace moraine::tools {
namespace {

using catalog::ColumnRecord;
using catalog::Id;
using store::Kind;
using store::Subspace;

template <class Record, class Visit>
void ScanTable(const store::KvSnapshot& snapshot, Kind kind, Id table_id, Visit&& visit) {
  for (Subspace subspace : {Subspace::kCurrent, Subspace::kHistory}) {
    catalog::ScanRecords<Record>(snapshot, store::TableRange(subspace, kind, uint64_t(table_id)),
                                 kind, visit);
  }
}

constexpr int64_t kLive = std::numeric_limits<int64_t>::max();
int64_t EndRank(const ColumnRecord& column) {
  return column.has_end_snapshot() ? column.end_snapshot() : kLive;
}

// The field among `versions` that bore `name` under `parent` (kTopLevel: a
// column of the table itself): a live one
// first, else the one that bore it most recently.
std::optional<Id> FindField(const std::map<Id, std::vector<ColumnRecord>>& versions, Id parent,
                            const std::string& name) {
  std::optional<Id> best;
  int64_t best_rank = -1;
  for (const auto& [id, field_versions] : versions) {
    for (const ColumnRecord& column : field_versions) {
      if (column.column_name() != name || catalog::ParentOf(column) != parent) continue;
      if (EndRank(column) > best_rank) {
        best = id;
        best_rank = EndRank(column);
      }
    }
  }
  return best;
}

std::string Text(bool present, const std::string& value) { return present ? value : "NULL"; }

// What changed from one version to the next, in words.
std::string Transition(const ColumnRecord& before, const ColumnRecord& after) {
  std::vector<std::string> changes;
  if (before.column_name() != after.column_name()) {
    changes.push_back("renamed to " + after.column_name());
  }
  if (before.column_type() != after.column_type()) {
    changes.push_back("type " + before.column_type() + " -> " + after.column_type());
  }
  if (before.has_default_value() != after.has_default_value() ||
      before.default_value() != after.default_value()) {
    changes.push_back("default " + Text(before.has_default_value(), before.default_value()) +
                      " -> " + Text(after.has_default_value(), after.default_value()));
  }
  if (before.nulls_allowed() != after.nulls_allowed()) {
    changes.push_back(after.nulls_allowed() ? "made nullable" : "made NOT NULL");
  }
  if (before.parent_column() != after.parent_column()) changes.push_back("moved");
  if (before.column_order() != after.column_order()) changes.push_back("reordered");
  if (changes.empty()) return "rewritten";
  std::string joined;
  for (const auto& change : changes) joined += (joined.empty() ? "" : ", ") + change;
  return joined;
}

}  // namespace

ColumnLineage TraceColumn(const store::KvSnapshot& snapshot, const LineageRequest& request) {
  const Id table_id = FindTableEver(snapshot, request.table);
  std::map<Id, std::vector<ColumnRecord>> versions;  // by field id
  ScanTable<ColumnRecord>(snapshot, Kind::kColumn, table_id, [&](const ColumnRecord& column) {
    versions[column.column_id()].push_back(column);
  });

  Id field = 0;
  if (request.field_id) {
    if (!versions.count(*request.field_id)) {
      throw store::NotFoundError("table " + request.table + " never had field id " +
                                 std::to_string(*request.field_id));
    }
    field = *request.field_id;
  } else {
    if (request.column_path.empty()) throw store::InvalidArgumentError("name a column");
    Id parent = catalog::kTopLevel;
    std::string path;
    for (const std::string& name : request.column_path) {
      path += (path.empty() ? "" : ".") + name;
      auto found = FindField(versions, parent, name);
      if (!found) {
        throw store::NotFoundError("table " + request.table + " never had a column " + path);
      }
      parent = *found;
    }
    field = parent;
  }

  // When the table itself ended (dropped), for "table dropped".
  std::optional<int64_t> table_end;
  bool table_live = false;
  ScanTable<catalog::TableRecord>(snapshot, Kind::kTable, table_id,
                                  [&](const catalog::TableRecord& t) {
                                    if (!t.has_end_snapshot())
                                      table_live = true;
                                    else
                                      table_end = std::max(table_end.value_or(0), t.end_snapshot());
                                  });

  std::vector<ColumnRecord>& history = versions[field];
  std::sort(history.begin(), history.end(), [](const ColumnRecord& a, const ColumnRecord& b) {
    return a.begin_snapshot() < b.begin_snapshot();
  });
  ColumnLineage lineage;
  lineage.versions.columns = {
      {"field_id", ToolType::kBigint},       {"version", ToolType::kBigint},
      {"name", ToolType::kVarchar},          {"type", ToolType::kVarchar},
      {"default_value", ToolType::kVarchar}, {"initial_default", ToolType::kVarchar},
      {"nullable", ToolType::kBoolean},      {"parent_field_id", ToolType::kBigint},
      {"begin_snapshot", ToolType::kBigint}, {"end_snapshot", ToolType::kBigint},
      {"ended_by", ToolType::kVarchar},      {"ending_changes", ToolType::kVarchar}};
  for (size_t i = 0; i < history.size(); ++i) {
    const ColumnRecord& column = history[i];
    ToolCell ended_by, ending_changes;
    if (column.has_end_snapshot()) {
      if (i + 1 < history.size() && history[i + 1].begin_snapshot() == column.end_snapshot()) {
        ended_by = Transition(column, history[i + 1]);
      } else {
        ended_by = std::string(!table_live && table_end == column.end_snapshot() ? "table dropped"
                                                                                 : "dropped");
      }
      if (auto ending = catalog::ReadRecord<catalog::SnapshotRecord>(
              snapshot, store::Key::Current(Kind::kSnapshot, {uint64_t(column.end_snapshot())}))) {
        ending_changes = CellOf(ending->has_changes_made(), ending->changes_made());
      }
    }
    lineage.versions.rows.push_back({
        column.column_id(),
        static_cast<int64_t>(i + 1),
        column.column_name(),
        CellOf(column.has_column_type(), column.column_type()),
        CellOf(column.has_default_value(), column.default_value()),
        CellOf(column.has_initial_default(), column.initial_default()),
        CellOf(column.has_nulls_allowed(), column.nulls_allowed()),
        CellOf(column.has_parent_column(), column.parent_column()),
        CellOf(column.has_begin_snapshot(), column.begin_snapshot()),
        CellOf(column.has_end_snapshot(), column.end_snapshot()),
        ended_by,
        ending_changes,
    });
  }

  // The field and its nested fields, by any version's parent.
  std::set<Id> subtree{field};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [id, field_versions] : versions) {
      for (const ColumnRecord& column : field_versions) {
        if (column.has_parent_column() && subtree.count(column.parent_column()) &&
            subtree.insert(id).second) {
          grew = true;
        }
      }
    }
  }
  // DuckLake records statistics per file for each field it wrote, one
  // container per (table, file) with an entry per field id: a file carries
  // the field when it has them.
  std::set<Id> carrying;
  catalog::ScanRecords<store::v1::FileColumnStatsSetRecord>(
      snapshot,
      store::TableRange(Subspace::kCurrent, Kind::kFileColumnStatsSet, uint64_t(table_id)),
      Kind::kFileColumnStatsSet, [&](const store::v1::FileColumnStatsSetRecord& stats) {
        for (const auto& entry : stats.entries()) {
          if (subtree.count(entry.column_id())) carrying.insert(stats.data_file_id());
        }
      });
  lineage.files.columns = {{"data_file_id", ToolType::kBigint},
                           {"path", ToolType::kVarchar},
                           {"record_count", ToolType::kBigint},
                           {"begin_snapshot", ToolType::kBigint},
                           {"end_snapshot", ToolType::kBigint}};
  std::map<Id, catalog::DataFileRecord> files;
  ScanTable<catalog::DataFileRecord>(snapshot, Kind::kDataFile, table_id,
                                     [&](const catalog::DataFileRecord& file) {
                                       if (carrying.count(file.data_file_id()))
                                         files[file.data_file_id()] = file;
                                     });
  for (const auto& [id, file] : files) {
    lineage.files.rows.push_back({id, CellOf(file.has_path(), file.path()),
                                  CellOf(file.has_record_count(), file.record_count()),
                                  CellOf(file.has_begin_snapshot(), file.begin_snapshot()),
                                  CellOf(file.has_end_snapshot(), file.end_snapshot())});
  }
  return lineage;
}

}  // namespace moraine::tools
