#include "commit/rows/snapshot_rebase.h"

#include <charconv>

#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"

namespace moraine::commit {
namespace {

using catalog::CatalogTable;

constexpr std::string_view kDataChangeKinds[] = {
    "inserted_into_table",
    "deleted_from_table",
    "inlined_insert",
    "inlined_delete",
};

bool IsSnapshotColumn(std::string_view column) {
  return column == "snapshot_id" || column == "begin_snapshot" || column == "end_snapshot";
}

template <class Number>
std::optional<Number> ParseNumber(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseId(std::string_view text) {
  const auto value = ParseNumber<int64_t>(text);
  if (!value || *value < 0) return std::nullopt;
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
  if (!IsTableStats(table)) return std::nullopt;
  return IntCellNamed(table, row, "table_id", shape);
}

}  // namespace

std::optional<std::map<int64_t, std::set<std::string>>> DataChangesByTable(
    std::string_view changes_made) {
  std::map<int64_t, std::set<std::string>> tables;
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
    tables[*table].emplace(kind);
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
  std::optional<std::map<int64_t, std::set<std::string>>> changed;
  std::set<int64_t> written;
  // Tables with a write that is neither an inlined row's insert nor a stats update.
  std::set<int64_t> more_than_inserts;
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
        changed = DataChangesByTable(std::get<std::string>(*text));
        if (!changed) return std::nullopt;
      }
      continue;
    }
    const auto inlined = catalog::ParseInlinedTableName(write.table);
    const bool inserts_a_row = inlined && inlined->kind == catalog::InlinedTableName::kData &&
                               write.kind == RowWrite::Kind::kInsert;
    const bool updates_stats = IsTableStats(write.table) && write.kind == RowWrite::Kind::kUpdate;
    for (const Row* row : {&write.before, &write.after}) {
      if (row->empty()) continue;
      const auto table = DataRowTable(write.table, *row, shape);
      if (!table) return std::nullopt;
      written.insert(*table);
      if (!inserts_a_row && !updates_stats) more_than_inserts.insert(*table);
    }
  }
  if (!snapshot_row || !changed) return std::nullopt;
  for (int64_t table : written) {
    if (!changed->count(table)) return std::nullopt;
  }
  DataCommit commit{snapshot_id, {}};
  for (const auto& [table, kinds] : *changed) {
    commit.tables.insert(table);
    if (kinds == std::set<std::string>{"inlined_insert"} && !more_than_inserts.count(table)) {
      commit.inserted_only.insert(table);
    }
  }
  return commit;
}

std::optional<std::set<int64_t>> HeadAdmitsRebase(
    const DataCommit& commit, const SnapshotCounters& base, uint64_t base_batches,
    const SnapshotCounters& head, uint64_t head_batches,
    const std::vector<std::string>& changes_after_base) {
  // the head moved without a snapshot
  if (head.snapshot_id <= base.snapshot_id) return std::nullopt;
  const auto snapshots = static_cast<uint64_t>(head.snapshot_id - base.snapshot_id);
  // One snapshot per batch: no batch without a snapshot (an expiry, a tool)
  // came between.
  if (head_batches < base_batches || head_batches - base_batches != snapshots) return std::nullopt;
  if (changes_after_base.size() != snapshots) return std::nullopt;
  if (head.schema_version != base.schema_version || head.next_catalog_id != base.next_catalog_id ||
      head.next_file_id < base.next_file_id) {
    return std::nullopt;
  }
  const std::set<std::string> inserts = {"inlined_insert", "inserted_into_table"};
  std::set<int64_t> shared;
  for (const auto& text : changes_after_base) {
    const auto tables = DataChangesByTable(text);
    if (!tables) return std::nullopt;
    for (const auto& [table, kinds] : *tables) {
      if (!commit.tables.count(table)) continue;
      if (!commit.inserted_only.count(table)) return std::nullopt;
      for (const auto& kind : kinds) {
        if (!inserts.count(kind)) return std::nullopt;
      }
      shared.insert(table);
    }
  }
  return shared;
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
    const auto row_ids = shift.row_ids.find(inlined->table_id);
    const bool shift_row_id =
        inlined->kind == catalog::InlinedTableName::kData && row_ids != shift.row_ids.end();
    for (size_t i = 0; i < leading.size() && i < row.size(); ++i) {
      if (IsSnapshotColumn(leading[i].name)) move(i);
      if (shift_row_id && leading[i].name == "row_id" && std::holds_alternative<int64_t>(row[i])) {
        row[i] = std::get<int64_t>(row[i]) + row_ids->second;
      }
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

bool IsTableStats(std::string_view table) {
  return table == "ducklake_table_stats" || table == "ducklake_table_column_stats";
}

std::optional<int64_t> IntCellNamed(std::string_view table, const Row& row, std::string_view column,
                                    catalog::CatalogVersion shape) {
  const auto* mapping = catalog::FindRowMapping(shape, table);
  return mapping ? IntCell(CellNamed(mapping->table(), row, column)) : std::nullopt;
}

namespace {

template <class Number>
std::optional<int> CompareNumbers(std::string_view a, std::string_view b) {
  const auto left = ParseNumber<Number>(a);
  const auto right = ParseNumber<Number>(b);
  // NaN orders nowhere: DuckLake keeps it apart (contains_nan).
  if (!left || !right || !(*left < *right || *right < *left || *left == *right)) {
    return std::nullopt;
  }
  return *left < *right ? -1 : *right < *left ? 1 : 0;
}

bool IsIsoDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') return false;
  }
  return true;
}

int Sign(int compared) { return compared < 0 ? -1 : compared > 0 ? 1 : 0; }

}  // namespace

std::optional<int> CompareStatValues(std::string_view column_type, std::string_view a,
                                     std::string_view b) {
  for (auto type : {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"}) {
    if (column_type == type) return CompareNumbers<int64_t>(a, b);
  }
  if (column_type == "uint64") return CompareNumbers<uint64_t>(a, b);
  if (column_type == "float32" || column_type == "float64") return CompareNumbers<double>(a, b);
  if (column_type == "varchar") return Sign(a.compare(b));  // bytewise, as DuckDB orders
  if (column_type == "boolean") {
    const auto truth = [](std::string_view text) -> std::optional<int> {
      if (text == "false") return 0;
      if (text == "true") return 1;
      return std::nullopt;
    };
    const auto left = truth(a), right = truth(b);
    if (!left || !right) return std::nullopt;
    return Sign(*left - *right);
  }
  // Years 0000-9999, zero-padded, order as their text.
  if (column_type == "date" && IsIsoDate(a) && IsIsoDate(b)) return Sign(a.compare(b));
  return std::nullopt;
}

std::optional<Row> StatsOnHead(std::string_view table, const Row& before, const Row& after,
                               const Row& head, std::string_view column_type,
                               catalog::CatalogVersion shape) {
  const auto* mapping = catalog::FindRowMapping(shape, table);
  if (!mapping || !IsTableStats(table)) return std::nullopt;
  const auto& columns = mapping->table().columns;
  if (before.size() != columns.size() || after.size() != columns.size() ||
      head.size() != columns.size()) {
    return std::nullopt;
  }
  Row out = head;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string_view name = columns[i].name;
    const Cell& was = before[i];
    const Cell& staged = after[i];
    const Cell& now = head[i];
    if (name == "record_count" || name == "next_row_id" || name == "file_size_bytes") {
      const auto* from = std::get_if<int64_t>(&was);
      const auto* to = std::get_if<int64_t>(&staged);
      const auto* at_head = std::get_if<int64_t>(&now);
      if (!from || !to || !at_head) return std::nullopt;
      out[i] = *at_head + (*to - *from);
    } else if (name == "contains_null" || name == "contains_nan") {
      if (staged.index() != now.index()) return std::nullopt;
      if (const auto* flag = std::get_if<bool>(&staged)) out[i] = *flag || std::get<bool>(now);
    } else if (name == "min_value" || name == "max_value") {
      if (staged.index() != now.index()) return std::nullopt;
      const auto* text = std::get_if<std::string>(&staged);
      if (!text) {
        if (!std::holds_alternative<std::monostate>(staged)) return std::nullopt;
        continue;
      }
      const auto compared = CompareStatValues(column_type, *text, std::get<std::string>(now));
      if (!compared) return std::nullopt;
      const bool take_staged = name == "min_value" ? *compared < 0 : *compared > 0;
      if (take_staged) out[i] = staged;
    } else if (staged != now) {
      // The keys, extra_stats and whatever a later format adds: nothing to merge.
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace moraine::commit
