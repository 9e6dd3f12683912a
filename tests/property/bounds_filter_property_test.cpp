// A batch of inlined rows is left unread only when no row of it could pass:
// for random batches of one column (BIGINT, DATE or VARCHAR cells, some NULL)
// summarized as the commit path summarizes them, and random filters of the
// shapes DuckDB pushes (comparisons, IN, IS [NOT] NULL, AND, OR), whenever
// BoundsFilter rules a batch out, DuckDB's own
// comparison of the batch's values passes none of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/inlined_row_batch.h"
#include "duckdb.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/null_filter.hpp"
#include "duckdb_shim/column_codec.h"
#include "duckdb_shim/raw_cell_order.h"
#include "ducklake_adapter/bounds_filter.h"

namespace moraine {
namespace {

using commit::inlined::ColumnBounds;
using duckdb::ExpressionType;
using duckdb::LogicalType;
using duckdb::Value;

constexpr int kCases = 3000;

class Generator {
 public:
  explicit Generator(uint32_t seed) : random_(seed) {}

  int Int(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  Value Of(const LogicalType& type) {
    switch (type.id()) {
      case duckdb::LogicalTypeId::BIGINT:
        return Value::BIGINT(Int(-20, 20));
      case duckdb::LogicalTypeId::DATE:
        return Value::DATE(duckdb::date_t(Int(-20, 20)));
      default: {
        std::string text;
        for (int i = Int(0, 3); i > 0; --i) text += static_cast<char>('a' + Int(0, 4));
        return Value(text);
      }
    }
  }

  duckdb::unique_ptr<duckdb::TableFilter> Filter(const LogicalType& type, int depth = 0) {
    static constexpr ExpressionType kComparisons[] = {
        ExpressionType::COMPARE_EQUAL,       ExpressionType::COMPARE_NOTEQUAL,
        ExpressionType::COMPARE_LESSTHAN,    ExpressionType::COMPARE_LESSTHANOREQUALTO,
        ExpressionType::COMPARE_GREATERTHAN, ExpressionType::COMPARE_GREATERTHANOREQUALTO};
    switch (Int(0, depth < 2 ? 6 : 3)) {
      case 0:
      case 1:
        return duckdb::make_uniq<duckdb::ConstantFilter>(kComparisons[Int(0, 5)], Of(type));
      case 2: {
        duckdb::vector<Value> values;
        for (int i = Int(1, 3); i > 0; --i) values.push_back(Of(type));
        return duckdb::make_uniq<duckdb::InFilter>(std::move(values));
      }
      case 3:
        return Int(0, 1) ? duckdb::unique_ptr<duckdb::TableFilter>(
                               duckdb::make_uniq<duckdb::IsNullFilter>())
                         : duckdb::make_uniq<duckdb::IsNotNullFilter>();
      case 4:
      case 5: {
        auto conjunction = duckdb::make_uniq<duckdb::ConjunctionAndFilter>();
        for (int i = 0; i < 2; ++i) conjunction->child_filters.push_back(Filter(type, depth + 1));
        return conjunction;
      }
      default: {
        auto conjunction = duckdb::make_uniq<duckdb::ConjunctionOrFilter>();
        for (int i = 0; i < 2; ++i) conjunction->child_filters.push_back(Filter(type, depth + 1));
        return conjunction;
      }
    }
  }

 private:
  std::mt19937 random_;
};

// Whether `value` passes `filter`, by DuckDB's comparison of values (SQL's:
// a comparison with NULL is not true).
bool Passes(const duckdb::TableFilter& filter, const Value& value) {
  using T = duckdb::TableFilterType;
  switch (filter.filter_type) {
    case T::CONSTANT_COMPARISON: {
      if (value.IsNull()) return false;
      const auto& compare = filter.Cast<duckdb::ConstantFilter>();
      const Value& constant = compare.constant;
      switch (compare.comparison_type) {
        case ExpressionType::COMPARE_EQUAL:
          return value == constant;
        case ExpressionType::COMPARE_NOTEQUAL:
          return value != constant;
        case ExpressionType::COMPARE_LESSTHAN:
          return value < constant;
        case ExpressionType::COMPARE_LESSTHANOREQUALTO:
          return value <= constant;
        case ExpressionType::COMPARE_GREATERTHAN:
          return value > constant;
        default:
          return value >= constant;
      }
    }
    case T::IN_FILTER:
      if (value.IsNull()) return false;
      for (const auto& constant : filter.Cast<duckdb::InFilter>().values) {
        if (value == constant) return true;
      }
      return false;
    case T::IS_NULL:
      return value.IsNull();
    case T::IS_NOT_NULL:
      return !value.IsNull();
    case T::CONJUNCTION_AND:
      for (const auto& child : filter.Cast<duckdb::ConjunctionAndFilter>().child_filters) {
        if (!Passes(*child, value)) return false;
      }
      return true;
    default:
      for (const auto& child : filter.Cast<duckdb::ConjunctionOrFilter>().child_filters) {
        if (Passes(*child, value)) return true;
      }
      return false;
  }
}

uint32_t Seed() {
  const char* seed = std::getenv("MORAINE_BOUNDS_FILTER_SEED");
  return seed ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10)) : 1;
}

TEST(BoundsFilterProperty, ABatchIsRuledOutOnlyWhenNoRowOfItPasses) {
  duckdb_shim::RawCellOrder::Install();
  const auto& order = *commit::inlined::GetCellOrder();
  Generator generate(Seed());
  const LogicalType types[] = {LogicalType::BIGINT, LogicalType::DATE, LogicalType::VARCHAR};
  int decided = 0, ruled_out = 0;
  for (int trial = 0; trial < kCases; ++trial) {
    const LogicalType& type = types[generate.Int(0, 2)];
    const int rows = generate.Int(1, 10);
    duckdb::Vector values(type, STANDARD_VECTOR_SIZE);
    commit::inlined::InlinedRowBatch batch(1);
    for (int row = 0; row < rows; ++row) {
      const Value value = generate.Int(0, 4) == 0 ? Value(type) : generate.Of(type);
      values.SetValue(row, value);
      std::optional<std::string> cell;
      if (!value.IsNull()) {
        cell = std::get<commit::OpaqueValue>(
                   duckdb_shim::CellFromValue(value, {type, duckdb_shim::CellKind::kOpaque}))
                   .bytes;
      }
      batch.Append(
          {.row_id = row, .end_snapshot = std::nullopt, .cells = {cell}, .removed = false});
    }
    std::string value = batch.Encode();
    const auto summary = commit::inlined::Summarize(1, value, 1);
    const auto& owned = summary.columns[0];
    const ColumnBounds<std::string_view> bounds{owned.has_null, owned.has_value, owned.ordered,
                                                owned.min, owned.max};
    const auto filter = generate.Filter(type);
    const auto decides = ducklake_adapter::BoundsFilter::Of(*filter, type);
    if (!decides) continue;
    ++decided;
    if (!decides->RulesOut(bounds, order)) continue;
    ++ruled_out;
    int passing = 0;
    for (int row = 0; row < rows; ++row) passing += Passes(*filter, values.GetValue(row));
    std::string cells;
    for (int row = 0; row < rows; ++row) cells += values.GetValue(row).ToString() + " ";
    EXPECT_EQ(passing, 0) << "trial " << trial << ": " << filter->ToString("c")
                          << " ruled out a batch of " << cells;
  }
  // The property is about something: most filters decide, and many batches
  // are ruled out.
  EXPECT_GT(decided, kCases / 2);
  EXPECT_GT(ruled_out, kCases / 10);
}

}  // namespace
}  // namespace moraine
