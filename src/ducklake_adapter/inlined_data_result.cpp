#include "ducklake_adapter/inlined_data_result.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <utility>

#include "catalog/ducklake_tables.h"
#include "commit/rows/inlined_batch_summary.h"
#include "duckdb/common/types.hpp"
#include "duckdb/common/vector_operations/vector_operations.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/storage/table/column_segment.hpp"
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
           duckdb::vector<duckdb::LogicalType> types, const std::vector<BoundFilter>& filters)
      : projection_(projection), types_(std::move(types)), filters_(filters) {
    filters_rows_ = std::any_of(filters_.begin(), filters_.end(),
                                [](const BoundFilter& filter) { return filter.state != nullptr; });
    if (!filters_rows_) return;
    duckdb::vector<duckdb::LogicalType> filtered_types;
    for (const auto& filter : filters_) filtered_types.push_back(types_[filter.column]);
    filtered_.Initialize(duckdb::Allocator::DefaultAllocator(), filtered_types);
  }

  void Add(int64_t begin, const commit::inlined::InlinedRowBatchView& batch, int64_t snapshot) {
    live_.clear();
    for (size_t row = 0; row < batch.size(); ++row) {
      const auto end = batch.end_snapshot(row);
      if (!end || *end > snapshot) live_.push_back(row);
    }
    if (filters_rows_) KeepRowsPassingFilters(batch);
    if (live_.empty()) return;
    for (const size_t row : live_) {
      if (!row_ids_.empty() && row_ids_.back() > batch.row_id(row)) sorted_ = false;
      row_ids_.push_back(batch.row_id(row));
    }
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
  uint64_t pruned() const { return pruned_; }

 private:
  // Narrows live_ to the rows every filter passes, a vector's worth at a
  // time: the filtered columns' cells of those rows are decoded into
  // filtered_ and DuckDB's own filter selection (what DuckLake's reader runs
  // in its Scan) picks the rows.
  void KeepRowsPassingFilters(const commit::inlined::InlinedRowBatchView& batch) {
    size_t kept = 0;
    for (size_t first = 0; first < live_.size(); first += STANDARD_VECTOR_SIZE) {
      const size_t count = std::min<size_t>(STANDARD_VECTOR_SIZE, live_.size() - first);
      filtered_.Reset();
      for (size_t i = 0; i < count; ++i) selection_.set_index(i, i);
      duckdb::idx_t approved = count;
      for (size_t f = 0; f < filters_.size() && approved > 0; ++f) {
        if (!filters_[f].state) continue;  // decided on batches' bounds only
        auto& vector = filtered_.data[f];
        auto cells = batch.ColumnCells(projection_[filters_[f].column].user_column);
        size_t next = first;
        for (size_t row = 0; row < batch.size() && next < first + count; ++row) {
          const auto cell = cells.Next();
          if (live_[next] != row) continue;
          if (!cell) {
            duckdb::FlatVector::SetNull(vector, next - first, true);
          } else {
            duckdb_shim::WriteOpaqueCell(*cell, types_[filters_[f].column], vector, next - first);
          }
          ++next;
        }
        duckdb::UnifiedVectorFormat format;
        vector.ToUnifiedFormat(count, format);
        approved = duckdb::ColumnSegment::FilterSelection(
            selection_, vector, format, *filters_[f].filter, *filters_[f].state, count, approved);
      }
      // The selection keeps rows in order, so each lands at or before its place.
      for (size_t i = 0; i < approved; ++i) live_[kept++] = live_[first + selection_.get_index(i)];
    }
    pruned_ += live_.size() - kept;
    live_.resize(kept);
  }

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
  const std::vector<BoundFilter>& filters_;
  bool filters_rows_ = false;   // whether a filter is applied to rows (has a state)
  duckdb::DataChunk filtered_;  // the filtered columns' cells of the rows being filtered
  duckdb::SelectionVector selection_{STANDARD_VECTOR_SIZE};  // those that passed, reused
  uint64_t pruned_ = 0;
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
  live_ = std::make_unique<LiveRows>(projection_, std::move(stored_types), filters_);
  const auto add = [&](int64_t begin, const commit::inlined::InlinedRowBatchView& batch) {
    live_->Add(begin, batch, snapshot);
  };
  // Where a filter decides on a batch's bounds, only the batches with a
  // live row that no such filter rules out are read.
  const auto* order = commit::inlined::GetCellOrder();
  const bool bounded =
      order && std::any_of(filters_.begin(), filters_.end(),
                           [](const BoundFilter& f) { return f.bounds.has_value(); });
  std::vector<int64_t> candidates;
  if (bounded && rows.VisitInlinedBatchSummaries(
                     table, snapshot, [&](const commit::inlined::SummaryPage& page, size_t batch) {
                       const int64_t live = page.LiveRows(batch, snapshot);
                       if (live == 0) return;
                       if (RuledOut(page, batch, *order)) {
                         ++batches_skipped_;
                         rows_ruled_out_ += static_cast<uint64_t>(live);
                         return;
                       }
                       candidates.push_back(page.begin_snapshot(batch));
                     })) {
    rows.ReadInlinedBatches(table, candidates, add);
    return;
  }
  rows.ScanInlinedBatches(table, snapshot, add);
}

namespace {

// Whether DuckDB's ColumnSegment::FilterSelection decides `filter` from the
// column's values alone, as it does in DuckLake's reader: not a dynamic
// filter (it changes while the query runs), an optional one (the reader
// skips it) or an expression.
bool DecidedByValues(const duckdb::TableFilter& filter) {
  using T = duckdb::TableFilterType;
  switch (filter.filter_type) {
    case T::CONSTANT_COMPARISON:
    case T::IS_NULL:
    case T::IS_NOT_NULL:
      return true;
    case T::CONJUNCTION_AND:
    case T::CONJUNCTION_OR: {
      const auto& children = static_cast<const duckdb::ConjunctionFilter&>(filter).child_filters;
      return std::all_of(children.begin(), children.end(),
                         [](const auto& child) { return DecidedByValues(*child); });
    }
    default:
      return false;
  }
}

}  // namespace

void InlinedDataRead::Filter(duckdb::ClientContext& context, const duckdb::TableFilterSet& filters,
                             const std::vector<duckdb::LogicalType>& types) {
  for (const auto& [column, filter] : filters.filters) {
    if (column >= projection_.size() || column >= types.size()) continue;
    const auto& projected = projection_[column];
    if (projected.source != ProjectedColumn::Source::kUser || projected.stored != projected.type ||
        projected.type != types[column]) {
      continue;
    }
    BoundFilter bound{column, filter.get(), nullptr, BoundsFilter::Of(*filter, projected.stored)};
    if (DecidedByValues(*filter)) {
      bound.state = duckdb::TableFilterState::Initialize(context, *filter);
    }
    if (bound.state || bound.bounds) filters_.push_back(std::move(bound));
  }
}

bool InlinedDataRead::RuledOut(const commit::inlined::SummaryPage& page, size_t batch,
                               const commit::inlined::CellOrder& order) const {
  return std::any_of(filters_.begin(), filters_.end(), [&](const BoundFilter& filter) {
    return filter.bounds && filter.bounds->RulesOut(
                                page.Bounds(batch, projection_[filter.column].user_column), order);
  });
}

uint64_t InlinedDataRead::pruned() const { return rows_ruled_out_ + (live_ ? live_->pruned() : 0); }

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
