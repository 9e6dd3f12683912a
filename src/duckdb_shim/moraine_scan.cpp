// The scan of a moraine table: DuckDB pushes projections and filters into it.
// Constant comparisons and IS NULL on BIGINT columns narrow the store scan
// (the core maps them to key ranges where its keys allow: `end_snapshot IS
// NULL` reads live versions only), as do the hints DuckDB adds (optional
// filters, a join's dynamic min/max filter, known by the time the scan starts);
// every pushed filter is then applied here exactly, because DuckDB removes
// pushed filters from the plan. The projection reaches the core too: a scan
// that reads only key columns is served from the keys, and a scan without
// row ids leaves nothing behind in the transaction.
#include <algorithm>
#include <limits>
#include <map>
#include <mutex>

#include "duckdb/common/exception.hpp"
#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/function/table_function.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/table_filter.hpp"
#include "duckdb_shim/duckdb_release.h"
#if MORAINE_DUCKDB_MAJOR >= 2
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_function_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/planner/filter/expression_filter.hpp"
#include "duckdb/planner/table_filter_set.hpp"
#else
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/dynamic_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"
#endif
#include "duckdb_shim/moraine_catalog.h"
#include "duckdb_shim/moraine_table_entry.h"
#include "duckdb_shim/moraine_transaction.h"

namespace moraine::duckdb_shim {
namespace {

struct ScanBindData : public duckdb::TableFunctionData {
  explicit ScanBindData(MoraineTableEntry& table_p) : table(table_p) {}
  MoraineTableEntry& table;
};

// The whole (filtered) result, materialized at init: the core's Scan is a
// visitor, and reading inside one locked call keeps the row transaction
// single-threaded.
struct ScanState : public duckdb::GlobalTableFunctionState {
  std::vector<std::unique_ptr<duckdb::DataChunk>> chunks;
  size_t next = 0;
};

void RaiseLower(commit::ColumnBound& bound, int64_t value) {
  bound.lower = bound.lower ? std::max(*bound.lower, value) : value;
}
void LowerUpper(commit::ColumnBound& bound, int64_t value) {
  bound.upper = bound.upper ? std::min(*bound.upper, value) : value;
}

// Narrows `bound` by `column <comparison> value`.
void NarrowByComparison(duckdb::ExpressionType comparison, const duckdb::Value& constant,
                        commit::ColumnBound& bound) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  if (constant.IsNull()) return;
  auto value = constant.GetValue<int64_t>();
  switch (comparison) {
    case duckdb::ExpressionType::COMPARE_EQUAL:
      RaiseLower(bound, value);
      LowerUpper(bound, value);
      break;
    case duckdb::ExpressionType::COMPARE_GREATERTHAN:
      if (value != kMax) RaiseLower(bound, value + 1);
      break;
    case duckdb::ExpressionType::COMPARE_GREATERTHANOREQUALTO:
      RaiseLower(bound, value);
      break;
    case duckdb::ExpressionType::COMPARE_LESSTHAN:
      if (value != kMin) LowerUpper(bound, value - 1);
      break;
    case duckdb::ExpressionType::COMPARE_LESSTHANOREQUALTO:
      LowerUpper(bound, value);
      break;
    default:
      break;
  }
}

#if MORAINE_DUCKDB_MAJOR >= 2
// DuckDB 2.0 pushes every filter as an expression over the column (a
// reference to chunk column 0): comparisons are bound functions, hints are
// wrapped in optional-filter functions.
void NarrowByExpression(const duckdb::Expression& expression, commit::ColumnBound& bound) {
  if (auto hinted = duckdb::ExpressionFilter::GetOptionalFilterChild(expression)) {
    NarrowByExpression(*hinted, bound);
    return;
  }
  switch (expression.GetExpressionClass()) {
    case duckdb::ExpressionClass::BOUND_CONJUNCTION:
      if (expression.GetExpressionType() == duckdb::ExpressionType::CONJUNCTION_AND) {
        for (auto& child : expression.Cast<duckdb::BoundConjunctionExpression>().GetChildren()) {
          NarrowByExpression(*child, bound);
        }
      }
      return;
    case duckdb::ExpressionClass::BOUND_FUNCTION: {
      auto comparison = duckdb::ExpressionType::INVALID;
      auto constant = duckdb::ExpressionFilter::TryGetColumnConstantComparison(
          expression.Cast<duckdb::BoundFunctionExpression>(), comparison);
      if (constant) NarrowByComparison(comparison, constant->GetValue(), bound);
      return;
    }
    case duckdb::ExpressionClass::BOUND_OPERATOR:
      if (expression.GetExpressionType() == duckdb::ExpressionType::OPERATOR_IS_NULL) {
        bound.is_null = true;
      }
      return;
    default:
      return;
  }
}

// Narrows `bound` by what `filter` implies; filters it cannot express (OR,
// IN, ...) leave it untouched, which only widens the store scan.
void Narrow(const duckdb::TableFilter& filter, commit::ColumnBound& bound) {
  if (filter.filter_type != duckdb::TableFilterType::EXPRESSION_FILTER) return;
  NarrowByExpression(*filter.Cast<duckdb::ExpressionFilter>().expr, bound);
}
#else
// Narrows `bound` by what `filter` implies; filters it cannot express (OR,
// IN, ...) leave it untouched, which only widens the store scan.
void Narrow(const duckdb::TableFilter& filter, commit::ColumnBound& bound) {
  switch (filter.filter_type) {
    case duckdb::TableFilterType::CONSTANT_COMPARISON: {
      auto& constant = filter.Cast<duckdb::ConstantFilter>();
      NarrowByComparison(constant.comparison_type, constant.constant, bound);
      return;
    }
    case duckdb::TableFilterType::IS_NULL:
      bound.is_null = true;
      return;
    case duckdb::TableFilterType::CONJUNCTION_AND:
      for (auto& child : filter.Cast<duckdb::ConjunctionAndFilter>().child_filters) {
        Narrow(*child, bound);
      }
      return;
    case duckdb::TableFilterType::OPTIONAL_FILTER: {
      // Optional filters restate a condition the plan applies anyway (a
      // join's build-side min/max, part of an OR), so they may narrow.
      auto& child = filter.Cast<duckdb::OptionalFilter>().child_filter;
      if (child) Narrow(*child, bound);
      return;
    }
    case duckdb::TableFilterType::DYNAMIC_FILTER: {
      auto& data = filter.Cast<duckdb::DynamicFilter>().filter_data;
      if (!data || !data->initialized) return;
      std::lock_guard<std::mutex> lock(data->lock);
      if (data->filter) Narrow(*data->filter, bound);
      return;
    }
    default:
      return;
  }
}
#endif

duckdb::unique_ptr<duckdb::GlobalTableFunctionState> InitScan(
    duckdb::ClientContext& context, duckdb::TableFunctionInitInput& input) {
  auto& table = input.bind_data->Cast<ScanBindData>().table;
  auto& spec = table.spec();
  auto& codecs = table.codecs();
  const auto& column_ids = input.column_ids;

  duckdb::vector<duckdb::LogicalType> types;
  for (auto column : column_ids) {
    if (column == duckdb::COLUMN_IDENTIFIER_ROW_ID) {
      types.push_back(duckdb::LogicalType::BIGINT);
    } else if (column < codecs.size()) {
      types.push_back(codecs[column].type);
    } else {
      throw duckdb::InternalException("moraine: scan of %s asked for unknown column %llu",
                                      spec.name, column);
    }
  }

  std::map<size_t, commit::ColumnBound> bounds_by_column;
  std::vector<std::unique_ptr<duckdb::ExpressionExecutor>> filters;
  std::vector<duckdb::unique_ptr<duckdb::Expression>> filter_expressions;
  auto apply = [&](duckdb::unique_ptr<duckdb::Expression> expression) {
    filter_expressions.push_back(std::move(expression));
    filters.push_back(
        std::make_unique<duckdb::ExpressionExecutor>(context, *filter_expressions.back()));
  };
  // A filter on one column: it may narrow the store scan, and is applied here.
  auto filter_column = [&](duckdb::idx_t index, const duckdb::TableFilter& filter) {
    auto column = column_ids[index];
    if (column != duckdb::COLUMN_IDENTIFIER_ROW_ID && codecs[column].kind == CellKind::kBigint) {
      auto& bound = bounds_by_column[column];
      bound.column = column;
      Narrow(filter, bound);
    }
    duckdb::BoundReferenceExpression reference(types[index], index);
    apply(filter.ToExpression(reference));
  };
  if (input.filters) {
#if MORAINE_DUCKDB_MAJOR >= 2
    for (const auto& entry : *input.filters) filter_column(entry.GetIndex(), entry.Filter());
    // A filter on several columns (2.0) refers to its i-th column as chunk
    // column i: point its references at the scanned columns instead.
    for (const auto& filter : input.filters->GetMultiColumnFilters()) {
      const auto& on_columns = filter->Cast<duckdb::ExpressionFilter>();
      auto expression = on_columns.expr->Copy();
      duckdb::ExpressionIterator::VisitExpressionMutable<duckdb::BoundReferenceExpression>(
          expression, [&](duckdb::BoundReferenceExpression& reference,
                          duckdb::unique_ptr<duckdb::Expression>&) {
            reference.IndexMutable() = on_columns.column_indexes[reference.Index()].GetIndex();
          });
      apply(std::move(expression));
    }
#else
    for (auto& [index, filter] : input.filters->filters) filter_column(index, *filter);
#endif
  }
  commit::ScanRequest request;
  request.handles = false;
  request.columns.emplace();
  for (auto column : column_ids) {
    if (column == duckdb::COLUMN_IDENTIFIER_ROW_ID) {
      request.handles = true;
    } else {
      request.columns->push_back(column);
    }
  }
  auto& bounds = request.bounds;
  for (auto& [column, bound] : bounds_by_column) {
    if (!bound.lower && !bound.upper && !bound.is_null) continue;
    // Contradictory bounds (x = 1 AND x = 2): nothing can match.
    if (bound.lower && bound.upper && *bound.lower > *bound.upper)
      return std::make_unique<ScanState>();
    bounds.push_back(bound);
  }

  auto state = std::make_unique<ScanState>();
  auto current = std::make_unique<duckdb::DataChunk>();
  current->Initialize(context, types);
  duckdb::idx_t count = 0;
  auto flush = [&]() {
    SetRowCount(*current, count);
    for (auto& executor : filters) {
      if (current->size() == 0) break;
      duckdb::SelectionVector selection(STANDARD_VECTOR_SIZE);
      auto selected = executor->SelectExpression(*current, selection);
      if (selected != current->size()) current->Slice(selection, selected);
    }
    if (current->size() > 0) {
      state->chunks.push_back(std::move(current));
      current = std::make_unique<duckdb::DataChunk>();
      current->Initialize(context, types);
    } else {
      current->Reset();
    }
    count = 0;
  };

  auto& transaction = MoraineTransaction::Get(context, table.ParentCatalog());
  const auto& where = table.ParentSchema().Cast<MoraineSchemaEntry>().catalog_store();
  transaction.WithRows(where, false, [&](commit::RowTransaction& rows) {
    rows.ScanProjected(spec.name, request, [&](commit::RowHandle handle, const commit::Row& row) {
      if (row.size() != codecs.size()) {
        throw duckdb::InternalException("moraine: row of %s has %llu cells, expected %llu",
                                        spec.name, row.size(), codecs.size());
      }
      for (size_t i = 0; i < column_ids.size(); i++) {
        auto column = column_ids[i];
        if (column == duckdb::COLUMN_IDENTIFIER_ROW_ID) {
          WritableData<int64_t>(current->data[i])[count] = static_cast<int64_t>(handle);
        } else {
          WriteCell(row[column], codecs[column], current->data[i], count);
        }
      }
      if (++count == STANDARD_VECTOR_SIZE) flush();
    });
  });
  flush();
  return state;
}

void RunScan(duckdb::ClientContext&, duckdb::TableFunctionInput& input, duckdb::DataChunk& output) {
  auto& state = input.global_state->Cast<ScanState>();
  // Chunks are never empty, so an empty output means the end of the scan.
  if (state.next < state.chunks.size()) output.Reference(*state.chunks[state.next++]);
}

}  // namespace

duckdb::TableFunction MoraineTableEntry::GetScanFunction(
    duckdb::ClientContext&, duckdb::unique_ptr<duckdb::FunctionData>& bind_data) {
  bind_data = duckdb::make_uniq<ScanBindData>(*this);
  duckdb::TableFunction function("moraine_scan", {}, RunScan, nullptr, InitScan);
  function.projection_pushdown = true;
  function.filter_pushdown = true;
  // With filter_prune the scan would have to drop filter-only columns itself.
  function.filter_prune = false;
  // Without its table entry DuckDB sees no base table: UPDATE/DELETE and rowid fail.
#if MORAINE_DUCKDB_MAJOR >= 2
  function.get_table_entry = [](duckdb::optional_ptr<const duckdb::FunctionData> data)
      -> duckdb::optional_ptr<duckdb::TableCatalogEntry> {
    return &data->Cast<ScanBindData>().table;
  };
#else
  function.get_bind_info = [](const duckdb::optional_ptr<duckdb::FunctionData> data) {
    return duckdb::BindInfo(data->Cast<ScanBindData>().table);
  };
#endif
  return function;
}

}  // namespace moraine::duckdb_shim
