#include "commit/rows/snapshot_rebase.h"

#include <charconv>

#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"

namespace moraine::commit {
namespace {

using catalog::CatalogTable;

// The fixed tables besides the snapshot's own two that a commit of inlined
// data writes (DuckLakeTransactionState::CommitChanges), all keyed by table.
constexpr std::string_view kDataTables[] = {"ducklake_table_stats", "ducklake_table_column_stats"};

constexpr std::string_view kDataChangeKinds[] = {
    "inserted_into_table",
    "deleted_from_table",
    "inlined_insert",
    "inlined_delete",
};

bool IsDataTable(std::string_view table) {
  for (auto name : kDataTables) {
    if (name == table) return true;
  }
  return false;
}

bool IsSnapshotColumn(std::string_view column) {
  return column == "snapshot_id" || column == "begin_snapshot" || column == "end_snapshot";
}

std::optional<int64_t> ParseId(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The cell of column `name` of `row` of `table`, or nullptr.
const catalog::Cell* CellNamed(const CatalogTable& table, const Row& row, std::string_view name) {
  for (size_t i = 0; i < table.columns.size() && i < row.size(); ++i) {
    if (table.columns[i].name == name) return &row[i];
  }
  return nullptr;
}

std::optional<int64_t> IntCell(const catalog::Cell* cell) {
  if (!cell || !std::holds_alternative<int64_t>(*cell)) return std::nullopt;
  return std::get<int64_t>(*cell);
}

// The table of a row a commit of inlined data writes besides its snapshot's,
// or nullopt for a row of any other table.
std::optional<int64_t> DataRowTable(std::string_view table, const Row& row,
                                    catalog::CatalogVersion shape) {
  if (auto inlined = catalog::ParseInlinedTableName(table)) return inlined->table_id;
  if (!IsDataTable(table)) return std::nullopt;
  const auto* mapping = catalog::FindRowMapping(shape, table);
  if (!mapping) return std::nullopt;
  return IntCell(CellNamed(mapping->table(), row, "table_id"));
}

}  // namespace

std::optional<std::set<int64_t>> DataChangedTables(std::string_view changes_made) {
  std::set<int64_t> tables;
  if (changes_made.empty()) return std::nullopt;
  size_t start = 0;
  while (start <= changes_made.size()) {
    // Data changes name tables by id, so an entry holds no quoted comma.
    const size_t comma = changes_made.find(',', start);
    const std::string_view entry = changes_made.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    const std::string_view kind = entry.substr(0, colon);
    bool data = false;
    for (auto each : kDataChangeKinds) data = data || each == kind;
    const auto table = ParseId(entry.substr(colon + 1));
    if (!data || !table) return std::nullopt;
    tables.insert(*table);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return tables;
}

std::optional<DataCommit> DataCommitOf(const std::vector<RowWrite>& writes,
                                       const SnapshotCounters& base,
                                       catalog::CatalogVersion shape) {
  const int64_t snapshot_id = base.snapshot_id + 1;
  const auto* snapshots = catalog::FindRowMapping(shape, "ducklake_snapshot");
  const auto* changes = catalog::FindRowMapping(shape, "ducklake_snapshot_changes");
  if (!snapshots || !changes) return std::nullopt;
  bool snapshot_row = false;
  std::optional<std::set<int64_t>> changed;
  std::set<int64_t> written;
  for (const auto& write : writes) {
    if (write.table == "ducklake_snapshot" || write.table == "ducklake_snapshot_changes") {
      if (write.kind != RowWrite::Kind::kInsert) return std::nullopt;
      const bool is_snapshot = write.table == "ducklake_snapshot";
      const CatalogTable& spec = (is_snapshot ? snapshots : changes)->table();
      if (IntCell(CellNamed(spec, write.after, "snapshot_id")) != snapshot_id) return std::nullopt;
      if (is_snapshot) {
        // A data commit keeps the schema version and allocates no catalog
        // ids; the file ids it allocates only mark its data change.
        const auto next_file_id = IntCell(CellNamed(spec, write.after, "next_file_id"));
        if (snapshot_row ||
            IntCell(CellNamed(spec, write.after, "schema_version")) != base.schema_version ||
            IntCell(CellNamed(spec, write.after, "next_catalog_id")) != base.next_catalog_id ||
            !next_file_id || *next_file_id < base.next_file_id) {
          return std::nullopt;
        }
        snapshot_row = true;
      } else {
        const auto* text = CellNamed(spec, write.after, "changes_made");
        if (changed || !text || !std::holds_alternative<std::string>(*text)) return std::nullopt;
        changed = DataChangedTables(std::get<std::string>(*text));
        if (!changed) return std::nullopt;
      }
      continue;
    }
    for (const Row* row : {&write.before, &write.after}) {
      if (row->empty()) continue;
      const auto table = DataRowTable(write.table, *row, shape);
      if (!table) return std::nullopt;
      written.insert(*table);
    }
  }
  if (!snapshot_row || !changed) return std::nullopt;
  for (int64_t table : written) {
    if (!changed->count(table)) return std::nullopt;
  }
  return DataCommit{snapshot_id, std::move(*changed)};
}

bool HeadAdmitsRebase(const DataCommit& commit, const SnapshotCounters& base, uint64_t base_batches,
                      const SnapshotCounters& head, uint64_t head_batches,
                      const std::vector<std::string>& changes_after_base) {
  if (head.snapshot_id <= base.snapshot_id) return false;  // the head moved without a snapshot
  const auto snapshots = static_cast<uint64_t>(head.snapshot_id - base.snapshot_id);
  // One snapshot per batch: no batch without a snapshot (an expiry, a tool)
  // came between.
  if (head_batches < base_batches || head_batches - base_batches != snapshots) return false;
  if (changes_after_base.size() != snapshots) return false;
  if (head.schema_version != base.schema_version || head.next_catalog_id != base.next_catalog_id ||
      head.next_file_id < base.next_file_id) {
    return false;
  }
  for (const auto& text : changes_after_base) {
    const auto tables = DataChangedTables(text);
    if (!tables) return false;
    for (int64_t table : *tables) {
      if (commit.tables.count(table)) return false;
    }
  }
  return true;
}

SnapshotMove MoveOnto(const DataCommit& commit, const SnapshotCounters& base,
                      const SnapshotCounters& head) {
  return {commit.snapshot_id, head.snapshot_id + 1, head.next_file_id - base.next_file_id};
}

Row WithSnapshotMoved(std::string_view table, Row row, const SnapshotMove& shift,
                      catalog::CatalogVersion shape) {
  const auto move = [&](size_t column) {
    if (column < row.size() && std::holds_alternative<int64_t>(row[column]) &&
        std::get<int64_t>(row[column]) == shift.from) {
      row[column] = shift.to;
    }
  };
  if (auto inlined = catalog::ParseInlinedTableName(table)) {
    // row_id, begin_snapshot, end_snapshot, then the user's columns; or
    // file_id, row_id, begin_snapshot.
    const auto& leading = inlined->kind == catalog::InlinedTableName::kData
                              ? catalog::InlinedDataLeadingColumns()
                              : catalog::InlinedDeleteColumns();
    for (size_t i = 0; i < leading.size(); ++i) {
      if (IsSnapshotColumn(leading[i].name)) move(i);
    }
    return row;
  }
  const auto* mapping = catalog::FindRowMapping(shape, table);
  if (!mapping) return row;
  const auto& columns = mapping->table().columns;
  const bool own_snapshot =
      table == "ducklake_snapshot" && !row.empty() && row[0] == Cell(shift.from);
  for (size_t i = 0; i < columns.size() && i < row.size(); ++i) {
    if (IsSnapshotColumn(columns[i].name)) move(i);
    if (own_snapshot && columns[i].name == "next_file_id" &&
        std::holds_alternative<int64_t>(row[i])) {
      row[i] = std::get<int64_t>(row[i]) + shift.file_ids;
    }
  }
  return row;
}

}  // namespace moraine::commit
