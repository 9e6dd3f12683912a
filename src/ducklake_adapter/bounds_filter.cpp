#include "ducklake_adapter/bounds_filter.h"

#include <algorithm>

#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"
#include "duckdb_shim/column_codec.h"

namespace moraine::ducklake_adapter {
namespace {

// `value` as the column codec stores it, if it is of `type` and stored raw
// (a serialized cell has no order).
std::optional<std::string> RawConstant(const duckdb::Value& value,
                                       const duckdb::LogicalType& type) {
  if (value.IsNull() || value.type() != type) return std::nullopt;
  const commit::Cell cell =
      duckdb_shim::CellFromValue(value, {type, duckdb_shim::CellKind::kOpaque});
  const auto* opaque = std::get_if<commit::OpaqueValue>(&cell);
  if (!opaque || opaque->bytes.empty() || opaque->bytes[0] == 0x64) return std::nullopt;
  return opaque->bytes;
}

}  // namespace

std::optional<BoundsFilter> BoundsFilter::Of(const duckdb::TableFilter& filter,
                                             const duckdb::LogicalType& type) {
  using T = duckdb::TableFilterType;
  switch (filter.filter_type) {
    case T::CONSTANT_COMPARISON: {
      const auto& compare = filter.Cast<duckdb::ConstantFilter>();
      auto constant = RawConstant(compare.constant, type);
      if (!constant) return std::nullopt;
      BoundsFilter made(Kind::kCompare);
      made.comparison_ = compare.comparison_type;
      made.constants_.push_back(std::move(*constant));
      return made;
    }
    case T::OPTIONAL_FILTER: {
      // Optional: DuckDB applies the filter itself above the scan, so no
      // row it leaves out of a scan is one the query keeps.
      const auto& child = filter.Cast<duckdb::OptionalFilter>().child_filter;
      return child ? Of(*child, type) : std::nullopt;
    }
    case T::IS_NULL:
      return BoundsFilter(Kind::kIsNull);
    case T::IS_NOT_NULL:
      return BoundsFilter(Kind::kIsNotNull);
    case T::IN_FILTER: {
      BoundsFilter made(Kind::kIn);
      for (const auto& value : filter.Cast<duckdb::InFilter>().values) {
        auto constant = RawConstant(value, type);
        if (!constant) return std::nullopt;
        made.constants_.push_back(std::move(*constant));
      }
      return made;
    }
    case T::CONJUNCTION_AND:
    case T::CONJUNCTION_OR: {
      const bool all = filter.filter_type == T::CONJUNCTION_AND;
      BoundsFilter made(all ? Kind::kAnd : Kind::kOr);
      for (const auto& child :
           static_cast<const duckdb::ConjunctionFilter&>(filter).child_filters) {
        auto decided = Of(*child, type);
        // An AND decides with the children it can; an OR needs all of them.
        if (decided) {
          made.children_.push_back(std::move(*decided));
        } else if (!all) {
          return std::nullopt;
        }
      }
      if (made.children_.empty()) return std::nullopt;
      return made;
    }
    default:
      return std::nullopt;
  }
}

bool BoundsFilter::NoCellPasses(std::string_view constant,
                                const commit::inlined::ColumnBounds<std::string_view>& bounds,
                                const commit::inlined::CellOrder& order) const {
  const auto below_min = order.Less(constant, bounds.min);  // constant < min
  const auto above_max = order.Less(bounds.max, constant);  // max < constant
  if (!below_min || !above_max) return false;
  using E = duckdb::ExpressionType;
  switch (kind_ == Kind::kIn ? E::COMPARE_EQUAL : comparison_) {
    case E::COMPARE_EQUAL:
      return *below_min || *above_max;
    case E::COMPARE_LESSTHAN: {  // cell < constant: none when min >= constant
      const auto min_below = order.Less(bounds.min, constant);
      return min_below && !*min_below;
    }
    case E::COMPARE_LESSTHANOREQUALTO:  // none when min > constant
      return *below_min;
    case E::COMPARE_GREATERTHAN: {  // cell > constant: none when max <= constant
      const auto constant_below_max = order.Less(constant, bounds.max);
      return constant_below_max && !*constant_below_max;
    }
    case E::COMPARE_GREATERTHANOREQUALTO:  // none when max < constant
      return *above_max;
    case E::COMPARE_NOTEQUAL:  // none when every cell is the constant
      return bounds.min == constant && bounds.max == constant;
    default:
      return false;
  }
}

bool BoundsFilter::RulesOut(const commit::inlined::ColumnBounds<std::string_view>& bounds,
                            const commit::inlined::CellOrder& order) const {
  switch (kind_) {
    case Kind::kIsNull:
      return !bounds.has_null;
    case Kind::kIsNotNull:
      return !bounds.has_value;
    case Kind::kAnd:
      return std::any_of(children_.begin(), children_.end(),
                         [&](const BoundsFilter& child) { return child.RulesOut(bounds, order); });
    case Kind::kOr:
      return std::all_of(children_.begin(), children_.end(),
                         [&](const BoundsFilter& child) { return child.RulesOut(bounds, order); });
    case Kind::kCompare:
    case Kind::kIn:
      // A comparison is never true of NULL: a batch of NULLs alone passes none.
      if (!bounds.has_value) return true;
      if (!bounds.ordered) return false;
      return std::all_of(constants_.begin(), constants_.end(), [&](const std::string& constant) {
        return NoCellPasses(constant, bounds, order);
      });
  }
  return false;
}

}  // namespace moraine::ducklake_adapter
