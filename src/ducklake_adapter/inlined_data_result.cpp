#include "ducklake_adapter/inlined_data_result.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include "catalog/ducklake_tables.h"
#include "duckdb/common/types.hpp"
#include "duckdb/common/types/column/column_data_collection.hpp"
#include "duckdb/common/vector_operations/vector_operations.hpp"
#include "duckdb/main/materialized_query_result.hpp"
#include "duckdb_shim/column_codec.h"

namespace moraine::ducklake_adapter {
namespace {

// What an output column reads: a leading column or a user column, in its
// stored type, then cast to `type` if that differs.
struct ProjectedColumn {
  enum class Source { kRowId, kBeginSnapshot, kEndSnapshot, kUser } source = Source::kUser;
  size_t user_column = 0;
  duckdb::LogicalType stored;
  duckdb::LogicalType type;
};

// A column name as DuckLake writes it (KeywordHelper::WriteOptionallyQuoted:
// bare, or in double quotes with inner quotes doubled) at the start of
// `text`; the name and the length it took, nullopt if there is none.
std::optional<std::pair<std::string, size_t>> LeadingName(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (text[0] != '"') {
    size_t length = 0;
    while (length < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[length])) || text[length] == '_')) {
      ++length;
    }
    if (length == 0) return std::nullopt;
    return std::pair(std::string(text.substr(0, length)), length);
  }
  std::string name;
  for (size_t at = 1; at < text.size(); ++at) {
    if (text[at] != '"') {
      name += text[at];
    } else if (at + 1 < text.size() && text[at + 1] == '"') {
      name += '"';
      ++at;
    } else {
      return std::pair(std::move(name), at + 1);
    }
  }
  return std::nullopt;
}

// What one of DuckLake's projected columns names: a column and, for
// `CAST(<name> AS <type>)`, the type; nullopt for anything else.
std::optional<std::pair<std::string, std::optional<std::string>>> ParseColumn(
    std::string_view text) {
  constexpr std::string_view kCast = "CAST(", kAs = " AS ";
  if (text.substr(0, kCast.size()) != kCast) {
    auto name = LeadingName(text);
    if (!name || name->second != text.size()) return std::nullopt;
    return std::pair(std::move(name->first), std::nullopt);
  }
  if (text.back() != ')') return std::nullopt;
  text = text.substr(kCast.size(), text.size() - kCast.size() - 1);
  auto name = LeadingName(text);
  if (!name || text.substr(name->second, kAs.size()) != kAs) return std::nullopt;
  return std::pair(std::move(name->first),
                   std::optional<std::string>(text.substr(name->second + kAs.size())));
}

std::optional<std::vector<ProjectedColumn>> Projection(duckdb::ClientContext& context,
                                                       const commit::TableSpec& spec,
                                                       const std::vector<std::string>& columns) {
  const size_t leading = catalog::InlinedDataLeadingColumns().size();
  std::vector<ProjectedColumn> projection;
  for (const auto& text : columns) {
    const auto parsed = ParseColumn(text);
    if (!parsed) return std::nullopt;
    size_t index = 0;
    while (index < spec.columns.size() && spec.columns[index].name != parsed->first) ++index;
    if (index == spec.columns.size()) return std::nullopt;
    ProjectedColumn column;
    try {
      if (index < leading) {
        using S = ProjectedColumn::Source;
        column.source = index == 0 ? S::kRowId : index == 1 ? S::kBeginSnapshot : S::kEndSnapshot;
        column.stored = duckdb::LogicalType::BIGINT;
      } else {
        column.user_column = index - leading;
        column.stored = duckdb::TransformStringToLogicalType(spec.columns[index].type, context);
      }
      column.type = parsed->second ? duckdb::TransformStringToLogicalType(*parsed->second, context)
                                   : column.stored;
    } catch (const std::exception&) {
      return std::nullopt;  // a type DuckLake's SQL may still resolve, or refuse in its words
    }
    projection.push_back(std::move(column));
  }
  return projection;
}

// The live rows, gathered batch by batch: the cells of the projected user
// columns copied into one arena, column by column per batch.
class LiveRows {
 public:
  explicit LiveRows(std::vector<size_t> user_columns) : user_columns_(std::move(user_columns)) {}

  void Add(int64_t begin, const commit::inlined::InlinedRowBatchView& batch, int64_t snapshot) {
    const auto index = static_cast<uint32_t>(batches_.size());
    batches_.push_back({begin, cells_.size(), batch.size()});
    for (size_t column : user_columns_) {
      auto cells = batch.ColumnCells(column);
      for (size_t row = 0; row < batch.size(); ++row) {
        const auto cell = cells.Next();
        if (!cell) {
          cells_.push_back({0, kNull});
          continue;
        }
        cells_.push_back({arena_.size(), cell->size()});
        arena_.append(*cell);
      }
    }
    for (size_t row = 0; row < batch.size(); ++row) {
      const auto end = batch.end_snapshot(row);
      if (end && *end <= snapshot) continue;
      if (!refs_.empty() && refs_.back().row_id > batch.row_id(row)) sorted_ = false;
      refs_.push_back({batch.row_id(row), end.value_or(-1), index, static_cast<uint32_t>(row)});
    }
  }

  // DuckLake orders the rows by row id (its deletion filter relies on it);
  // rows arrive in that order unless updates re-inserted old row ids.
  void SortByRowId() {
    if (sorted_) return;
    std::stable_sort(refs_.begin(), refs_.end(),
                     [](const Ref& a, const Ref& b) { return a.row_id < b.row_id; });
    sorted_ = true;
  }

  // Writes rows [first, first + count) of `projected`, the `user_slot`th
  // decoded user column if it is one, into `out`, in its stored type.
  void Write(const ProjectedColumn& projected, size_t user_slot, size_t first, size_t count,
             duckdb::Vector& out) const {
    using S = ProjectedColumn::Source;
    for (size_t i = 0; i < count; ++i) {
      const Ref& ref = refs_[first + i];
      const Batch& batch = batches_[ref.batch];
      switch (projected.source) {
        case S::kRowId:
          duckdb::FlatVector::GetData<int64_t>(out)[i] = ref.row_id;
          break;
        case S::kBeginSnapshot:
          duckdb::FlatVector::GetData<int64_t>(out)[i] = batch.begin;
          break;
        case S::kEndSnapshot:
          if (ref.end < 0) {
            // SetNull, not the validity alone: a nested vector's children
            // must be NULL too.
            duckdb::FlatVector::SetNull(out, i, true);
          } else {
            duckdb::FlatVector::GetData<int64_t>(out)[i] = ref.end;
          }
          break;
        case S::kUser: {
          const Cell& cell = cells_[batch.first_cell + user_slot * batch.rows + ref.row];
          if (cell.length == kNull) {
            duckdb::FlatVector::SetNull(out, i, true);
          } else {
            duckdb_shim::WriteOpaqueCell(std::string_view(arena_).substr(cell.offset, cell.length),
                                         projected.stored, out, i);
          }
          break;
        }
      }
    }
  }

  size_t size() const { return refs_.size(); }

 private:
  static constexpr size_t kNull = SIZE_MAX;
  struct Batch {
    int64_t begin;
    size_t first_cell;  // its cells in cells_: column by column, row by row
    size_t rows;
  };
  struct Cell {
    size_t offset;  // in arena_
    size_t length;  // kNull: SQL NULL
  };
  struct Ref {
    int64_t row_id;
    int64_t end;  // -1: NULL
    uint32_t batch;
    uint32_t row;
  };
  std::vector<size_t> user_columns_;  // the decoded user columns
  std::vector<Batch> batches_;
  std::vector<Cell> cells_;
  std::string arena_;
  std::vector<Ref> refs_;
  bool sorted_ = true;
};

}  // namespace

duckdb::unique_ptr<duckdb::QueryResult> InlinedDataResult(duckdb::ClientContext& context,
                                                          commit::RowTransaction& rows,
                                                          int64_t snapshot,
                                                          const std::string& table,
                                                          const std::vector<std::string>& columns) {
  const auto name = catalog::ParseInlinedTableName(table);
  if (!name || name->kind != catalog::InlinedTableName::kData) return nullptr;
  const auto spec = rows.FindTable(table);
  if (!spec) return nullptr;
  auto projection = Projection(context, *spec, columns);
  if (!projection || projection->empty()) return nullptr;

  // Which user columns are decoded, and where each projected one sits among them.
  std::vector<size_t> user_columns;
  std::vector<size_t> user_slot(projection->size(), 0);
  for (size_t i = 0; i < projection->size(); ++i) {
    const auto& column = (*projection)[i];
    if (column.source != ProjectedColumn::Source::kUser) continue;
    const auto at = std::find(user_columns.begin(), user_columns.end(), column.user_column);
    user_slot[i] = static_cast<size_t>(at - user_columns.begin());
    if (at == user_columns.end()) user_columns.push_back(column.user_column);
  }
  LiveRows live(user_columns);
  rows.ScanInlinedBatches(table, snapshot,
                          [&](int64_t begin, const commit::inlined::InlinedRowBatchView& batch) {
                            live.Add(begin, batch, snapshot);
                          });
  live.SortByRowId();

  duckdb::vector<std::string> names;
  duckdb::vector<duckdb::LogicalType> stored_types, types;
  for (size_t i = 0; i < projection->size(); ++i) {
    names.push_back("col" + std::to_string(i + 1));  // DuckLake's aliases
    stored_types.push_back((*projection)[i].stored);
    types.push_back((*projection)[i].type);
  }
  auto collection =
      duckdb::make_uniq<duckdb::ColumnDataCollection>(duckdb::Allocator::DefaultAllocator(), types);
  duckdb::DataChunk stored, out;
  stored.Initialize(duckdb::Allocator::DefaultAllocator(), stored_types);
  out.Initialize(duckdb::Allocator::DefaultAllocator(), types);
  for (size_t first = 0; first < live.size(); first += STANDARD_VECTOR_SIZE) {
    const size_t count = std::min<size_t>(STANDARD_VECTOR_SIZE, live.size() - first);
    stored.Reset();
    out.Reset();
    for (size_t i = 0; i < projection->size(); ++i) {
      const auto& column = (*projection)[i];
      live.Write(column, user_slot[i], first, count, stored.data[i]);
      if (column.type == column.stored) {
        out.data[i].Reference(stored.data[i]);
      } else {
        duckdb::VectorOperations::Cast(context, stored.data[i], out.data[i], count);
      }
    }
    stored.SetCardinality(count);
    out.SetCardinality(count);
    collection->Append(out);
  }
  return duckdb::make_uniq<duckdb::MaterializedQueryResult>(
      duckdb::StatementType::SELECT_STATEMENT, duckdb::StatementProperties(), std::move(names),
      std::move(collection), context.GetClientProperties());
}

}  // namespace moraine::ducklake_adapter
