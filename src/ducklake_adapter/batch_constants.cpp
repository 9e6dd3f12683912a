#include "ducklake_adapter/batch_constants.h"

#include <algorithm>
#include <string>

#include "duckdb/common/string_util.hpp"
#include "duckdb/common/types/decimal.hpp"
#include "duckdb/parser/expression/cast_expression.hpp"
#include "duckdb/parser/expression/constant_expression.hpp"
#include "duckdb/parser/expression/function_expression.hpp"
#include "duckdb/parser/result_modifier.hpp"

namespace moraine::ducklake_adapter {

bool CastsWithoutContext(const duckdb::LogicalType& type) {
  if (type.HasAlias()) return false;
  switch (type.id()) {
    case duckdb::LogicalTypeId::BOOLEAN:
    case duckdb::LogicalTypeId::TINYINT:
    case duckdb::LogicalTypeId::SMALLINT:
    case duckdb::LogicalTypeId::INTEGER:
    case duckdb::LogicalTypeId::BIGINT:
    case duckdb::LogicalTypeId::HUGEINT:
    case duckdb::LogicalTypeId::UTINYINT:
    case duckdb::LogicalTypeId::USMALLINT:
    case duckdb::LogicalTypeId::UINTEGER:
    case duckdb::LogicalTypeId::UBIGINT:
    case duckdb::LogicalTypeId::UHUGEINT:
    case duckdb::LogicalTypeId::FLOAT:
    case duckdb::LogicalTypeId::DOUBLE:
    case duckdb::LogicalTypeId::DECIMAL:
    case duckdb::LogicalTypeId::BLOB:
    case duckdb::LogicalTypeId::UUID:
    case duckdb::LogicalTypeId::DATE:
    case duckdb::LogicalTypeId::TIME:
    case duckdb::LogicalTypeId::TIMESTAMP:
    case duckdb::LogicalTypeId::TIMESTAMP_SEC:
    case duckdb::LogicalTypeId::TIMESTAMP_MS:
    case duckdb::LogicalTypeId::TIMESTAMP_NS:
    case duckdb::LogicalTypeId::INTERVAL:
      return true;
    case duckdb::LogicalTypeId::VARCHAR:
      return duckdb::StringType::GetCollation(type).empty();
    default:
      return false;
  }
}

duckdb::LogicalType BuiltinType(const duckdb::LogicalType& type) {
  return type.IsUnbound() ? duckdb::UnboundType::TryDefaultBind(type) : type;
}

std::optional<duckdb::Value> CastForColumn(const duckdb::Value& value,
                                           const duckdb::LogicalType& type) {
  if (value.type() == type) return value;
  if (value.IsNull()) return duckdb::Value(type);
  if (!CastsWithoutContext(value.type()) || !CastsWithoutContext(type)) return std::nullopt;
  duckdb::Value cast;
  std::string error;
  if (!value.DefaultTryCastAs(type, cast, &error)) return std::nullopt;
  return cast;
}

std::optional<duckdb::Value> ConstantValueOf(const duckdb::ParsedExpression& expression,
                                             duckdb::timestamp_t transaction_start) {
  switch (expression.GetExpressionClass()) {
    case duckdb::ExpressionClass::CONSTANT:
      return expression.Cast<duckdb::ConstantExpression>().value;
    case duckdb::ExpressionClass::CAST: {
      auto& cast = expression.Cast<duckdb::CastExpression>();
      if (cast.try_cast) return std::nullopt;
      auto child = ConstantValueOf(*cast.child, transaction_start);
      if (!child) return std::nullopt;
      return CastForColumn(*child, BuiltinType(cast.cast_type));
    }
    case duckdb::ExpressionClass::FUNCTION: {
      // NOW() and its synonyms: the transaction's start, as DuckDB's
      // get_current_timestamp() returns it.
      auto& function = expression.Cast<duckdb::FunctionExpression>();
      if (!function.children.empty() || !function.catalog.empty() || !function.schema.empty() ||
          function.distinct || function.filter ||
          (function.order_bys && !function.order_bys->orders.empty()) || function.export_state) {
        return std::nullopt;
      }
      const auto name = duckdb::StringUtil::Lower(function.function_name);
      if (name != "now" && name != "current_timestamp" && name != "get_current_timestamp" &&
          name != "transaction_timestamp") {
        return std::nullopt;
      }
      return duckdb::Value::TIMESTAMPTZ(duckdb::timestamp_tz_t(transaction_start));
    }
    default:
      return std::nullopt;
  }
}

bool UnifiesTrivially(const duckdb::Value& a, const duckdb::Value& b) {
  if (a.IsNull() || b.IsNull()) return true;
  if (a.type().IsIntegral() && b.type().IsIntegral()) return true;
  // Two decimals unify to a decimal wide enough for both, exactly, unless
  // that needs more than 38 digits (DuckDB then takes DOUBLE).
  if (a.type().id() == duckdb::LogicalTypeId::DECIMAL &&
      b.type().id() == duckdb::LogicalTypeId::DECIMAL) {
    const auto scale =
        std::max(duckdb::DecimalType::GetScale(a.type()), duckdb::DecimalType::GetScale(b.type()));
    const auto digits =
        std::max(duckdb::DecimalType::GetWidth(a.type()) - duckdb::DecimalType::GetScale(a.type()),
                 duckdb::DecimalType::GetWidth(b.type()) - duckdb::DecimalType::GetScale(b.type()));
    return digits + scale <= duckdb::Decimal::MAX_WIDTH_DECIMAL;
  }
  return a.type() == b.type();
}

}  // namespace moraine::ducklake_adapter
