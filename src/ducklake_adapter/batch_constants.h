// The constants of DuckLake's commit batch, evaluated without DuckDB's
// binder, for CommitBatchStager: a literal, NOW() (the transaction's start,
// as DuckDB's current_timestamp gives it) and a cast of either to a type
// whose casts need no client context. Everything else is not a constant here,
// and its statement goes to DuckDB.
//
// A value is only ever cast with DuckDB's default casts between types whose
// casts no setting changes (no time zones, collations, enums or nested
// types), so the result is the one DuckDB's INSERT or UPDATE would store.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>

#include "duckdb/common/types/timestamp.hpp"
#include "duckdb/common/types/value.hpp"

namespace duckdb {
class ParsedExpression;
}  // namespace duckdb

namespace moraine::ducklake_adapter {

// Whether values are cast to and from `type` here: booleans, numbers,
// VARCHAR without collation, BLOB, UUID, DATE, TIME, TIMESTAMP (not WITH
// TIME ZONE) and INTERVAL, none under a type alias.
bool CastsWithoutContext(const duckdb::LogicalType& type);

// `type` as the parser left it, bound to the built-in type of that name
// (DuckDB binds a cast's type name at bind time); a name that is not a
// built-in type stays unbound, which CastsWithoutContext refuses.
duckdb::LogicalType BuiltinType(const duckdb::LogicalType& type);

// The value of `expression` if it is a constant in the sense above;
// `transaction_start` is what NOW() gives.
std::optional<duckdb::Value> ConstantValueOf(const duckdb::ParsedExpression& expression,
                                             duckdb::timestamp_t transaction_start);

// `value` cast to `type` as DuckDB's INSERT would cast it; nullopt when either
// type is not CastsWithoutContext (a NULL or a value already of `type` always
// casts) or the cast fails (DuckDB then reports the error).
std::optional<duckdb::Value> CastForColumn(const duckdb::Value& value,
                                           const duckdb::LogicalType& type);

// Whether the non-NULL values of one column of a VALUES list cast each on its
// own to exactly what DuckDB stores after unifying the column's type first:
// all integers, all decimals that fit one decimal type, or all of one type.
bool UnifiesTrivially(const duckdb::Value& a, const duckdb::Value& b);

}  // namespace moraine::ducklake_adapter
