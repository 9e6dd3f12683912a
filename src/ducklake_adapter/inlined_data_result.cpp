#include "ducklake_adapter/inlined_data_result.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include "catalog/ducklake_tables.h"
#include "duckdb/common/types.hpp"
#include "duckdb/common/vector_operations/vector_operations.hpp"
#include "duckdb_shim/column_codec.h"
#include "ducklake_adapter/chunk_query_result.h"

namespace moraine::ducklake_adapter {
namespace {

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

using ProjectedColumn = InlinedDataRead::ProjectedColumn;

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

}  // namespace

// The live rows, decoded batch by batch straight into chunks of the
// projection's stored types, in the order the batches hold them.
class InlinedDataRead::LiveRows {
 public:
  LiveRows(const std::vector<ProjectedColumn>& projection,
           duckdb::vector<duckdb::LogicalType> types)
      : projection_(projection), types_(std::move(types)) {}

  void Add(int64_t begin, const commit::inlined::InlinedRowBatchView& batch, int64_t snapshot) {
    live_.clear();
    for (size_t row = 0; row < batch.size(); ++row) {
      const auto end = batch.end_snapshot(row);
      if (end && *end <= snapshot) continue;
      live_.push_back(row);
      if (!row_ids_.empty() && row_ids_.back() > batch.row_id(row)) sorted_ = false;
      row_ids_.push_back(batch.row_id(row));
    }
    if (live_.empty()) return;
    const size_t first = size_;
    size_ += live_.size();
    while (chunks_.size() * STANDARD_VECTOR_SIZE < size_) {
      auto& chunk = chunks_.emplace_back(duckdb::make_uniq<duckdb::DataChunk>());
      chunk->Initialize(duckdb::Allocator::DefaultAllocator(), types_);
    }
    using S = ProjectedColumn::Source;
    for (size_t column = 0; column < projection_.size(); ++column) {
      const auto& projected = projection_[column];
      if (projected.source != S::kUser) {
        for (size_t i = 0; i < live_.size(); ++i) {
          const size_t row = live_[i];
          auto [vector, at] = Target(first + i, column);
          const auto end = batch.end_snapshot(row);
          if (projected.source == S::kEndSnapshot && !end) {
            duckdb::FlatVector::SetNull(vector, at, true);
            continue;
          }
          duckdb::FlatVector::GetData<int64_t>(vector)[at] =
              projected.source == S::kRowId           ? batch.row_id(row)
              : projected.source == S::kBeginSnapshot ? begin
                                                      : *end;
        }
        continue;
      }
      auto cells = batch.ColumnCells(projected.user_column);
      size_t next_live = 0;
      for (size_t row = 0; row < batch.size() && next_live < live_.size(); ++row) {
        const auto cell = cells.Next();
        if (live_[next_live] != row) continue;
        auto [vector, at] = Target(first + next_live, column);
        ++next_live;
        if (!cell) {
          // SetNull, not the validity alone: a nested vector's children
          // must be NULL too.
          duckdb::FlatVector::SetNull(vector, at, true);
        } else {
          duckdb_shim::WriteOpaqueCell(*cell, projected.stored, vector, at);
        }
      }
    }
  }

  // The rows in row id order (DuckLake orders them so; its deletion filter
  // relies on it), cast to the projection's types, a chunk per vector's
  // worth. They arrive in that order unless updates re-inserted old row ids
  // into later batches; then they are gathered into new chunks.
  duckdb::vector<duckdb::unique_ptr<duckdb::DataChunk>> Finish(
      duckdb::ClientContext& context, const duckdb::vector<duckdb::LogicalType>& out_types) {
    std::vector<size_t> order;
    if (!sorted_) {
      order.resize(size_);
      for (size_t i = 0; i < size_; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return row_ids_[a] < row_ids_[b]; });
    }
    const bool cast = out_types != types_;
    duckdb::vector<duckdb::unique_ptr<duckdb::DataChunk>> out;
    for (size_t first = 0; first < size_; first += STANDARD_VECTOR_SIZE) {
      const size_t count = std::min<size_t>(STANDARD_VECTOR_SIZE, size_ - first);
      duckdb::unique_ptr<duckdb::DataChunk> source;
      if (sorted_) {
        source = std::move(chunks_[first / STANDARD_VECTOR_SIZE]);
      } else {
        source = duckdb::make_uniq<duckdb::DataChunk>();
        source->Initialize(duckdb::Allocator::DefaultAllocator(), types_);
        Gather(order, first, count, *source);
      }
      source->SetCardinality(count);
      if (!cast) {
        out.push_back(std::move(source));
        continue;
      }
      // A column already of its output type is referenced: its buffers
      // live as long as the chunk handed out.
      auto& converted = *out.emplace_back(duckdb::make_uniq<duckdb::DataChunk>());
      converted.Initialize(duckdb::Allocator::DefaultAllocator(), out_types);
      for (size_t column = 0; column < out_types.size(); ++column) {
        if (out_types[column] == types_[column]) {
          converted.data[column].Reference(source->data[column]);
        } else {
          duckdb::VectorOperations::Cast(context, source->data[column], converted.data[column],
                                         count);
        }
      }
      converted.SetCardinality(count);
    }
    return out;
  }

  size_t size() const { return size_; }

 private:
  std::pair<duckdb::Vector&, size_t> Target(size_t position, size_t column) {
    return {chunks_[position / STANDARD_VECTOR_SIZE]->data[column],
            position % STANDARD_VECTOR_SIZE};
  }

  // Copies the rows order[first, first + count) into `into`, a run of rows
  // of one arrival chunk at a time.
  void Gather(const std::vector<size_t>& order, size_t first, size_t count,
              duckdb::DataChunk& into) const {
    duckdb::SelectionVector selection(STANDARD_VECTOR_SIZE);
    size_t done = 0;
    while (done < count) {
      const size_t chunk = order[first + done] / STANDARD_VECTOR_SIZE;
      size_t run = 0;
      while (done + run < count && order[first + done + run] / STANDARD_VECTOR_SIZE == chunk) {
        selection.set_index(run, order[first + done + run] % STANDARD_VECTOR_SIZE);
        ++run;
      }
      for (size_t column = 0; column < types_.size(); ++column) {
        duckdb::VectorOperations::Copy(chunks_[chunk]->data[column], into.data[column], selection,
                                       run, 0, done);
      }
      done += run;
    }
    into.SetCardinality(count);
  }

  const std::vector<ProjectedColumn>& projection_;
  duckdb::vector<duckdb::LogicalType> types_;  // stored, per projected column
  std::vector<duckdb::unique_ptr<duckdb::DataChunk>> chunks_;
  std::vector<int64_t> row_ids_;  // per live row, in arrival order
  std::vector<size_t> live_;      // the live rows of the batch being added
  size_t size_ = 0;
  bool sorted_ = true;
};

std::optional<commit::TableSpec> InlinedDataRead::FindTable(commit::RowTransaction& rows,
                                                            const std::string& table) {
  const auto name = catalog::ParseInlinedTableName(table);
  if (!name || name->kind != catalog::InlinedTableName::kData) return std::nullopt;
  return rows.FindTable(table);
}

bool InlinedDataRead::Bind(duckdb::ClientContext& context, const commit::TableSpec& spec,
                           const std::vector<std::string>& columns) {
  auto projection = Projection(context, spec, columns);
  if (!projection || projection->empty()) return false;
  projection_ = std::move(*projection);
  return true;
}

void InlinedDataRead::Read(commit::RowTransaction& rows, const std::string& table,
                           int64_t snapshot) {
  duckdb::vector<duckdb::LogicalType> stored_types;
  for (const auto& column : projection_) stored_types.push_back(column.stored);
  live_ = std::make_unique<LiveRows>(projection_, std::move(stored_types));
  rows.ScanInlinedBatches(table, snapshot,
                          [&](int64_t begin, const commit::inlined::InlinedRowBatchView& batch) {
                            live_->Add(begin, batch, snapshot);
                          });
}

duckdb::unique_ptr<duckdb::QueryResult> InlinedDataRead::Finish(duckdb::ClientContext& context) {
  duckdb::vector<std::string> names;
  duckdb::vector<duckdb::LogicalType> types;
  for (size_t i = 0; i < projection_.size(); ++i) {
    names.push_back("col" + std::to_string(i + 1));  // DuckLake's aliases
    types.push_back(projection_[i].type);
  }
  auto chunks = live_->Finish(context, types);
  return duckdb::make_uniq<ChunkQueryResult>(context, std::move(types), std::move(names),
                                             std::move(chunks));
}

InlinedDataRead::InlinedDataRead() = default;
InlinedDataRead::~InlinedDataRead() = default;

}  // namespace moraine::ducklake_adapter
