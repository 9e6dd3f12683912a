// FileStatsFilter keeps exactly the files DuckLake's SQL keeps: for random
// filters over random stats rows, its decision equals DuckDB's evaluation of
// the WHERE clause DuckLake's GetFilesForTable writes for that filter
// (GenerateFilterPushdown and ConvertFilterPushdownToSQL at d8a1881e,
// transcribed below as text), stats that do not cast and NULLs included.
// And a group of files (a data file summary page) is ruled out by the bounds
// the commit path writes for it only when DuckLake's SQL keeps none of them.
#include "ducklake_adapter/file_stats_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "commit/rows/data_file_summary.h"
#include "duckdb.hpp"
#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/null_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"
#include "ducklake_adapter/file_list_read.h"

namespace moraine::ducklake_adapter {
namespace {

using duckdb::ExpressionType;
using duckdb::LogicalType;
using duckdb::TableFilter;
using duckdb::TableFilterType;
using duckdb::Value;

constexpr int kCases = 1500;
constexpr int kRowsPerCase = 40;

// ---- DuckLake's SQL, as its manager writes it --------------------------------

bool RequiresValueComparison(const LogicalType& type) {
  return type.IsNumeric() || type.IsTemporal() || type.id() == duckdb::LogicalTypeId::BOOLEAN;
}

std::string Literal(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  return quoted + "'";
}

std::string CastValueToTarget(const Value& value, const LogicalType& type) {
  const bool finite =
      (type.id() != duckdb::LogicalTypeId::DOUBLE && type.id() != duckdb::LogicalTypeId::FLOAT) ||
      Value::IsFinite(value.GetValue<double>());
  if (type.IsNumeric() && finite) return value.ToString();
  return Literal(value.ToString());
}

std::string CastStatsToTarget(const std::string& stat, const LogicalType& type) {
  if (RequiresValueComparison(type)) return "TRY_CAST(" + stat + " AS " + type.ToString() + ")";
  return stat;
}

std::string ConstantFilterSql(const duckdb::ConstantFilter& filter, const LogicalType& type,
                              std::set<std::string>& stats) {
  const auto constant = CastValueToTarget(filter.constant, type);
  const auto min = CastStatsToTarget("min_value", type);
  const auto max = CastStatsToTarget("max_value", type);
  switch (filter.comparison_type) {
    case ExpressionType::COMPARE_EQUAL:
      stats.insert({"min_value", "max_value"});
      return constant + " BETWEEN " + min + " AND " + max;
    case ExpressionType::COMPARE_NOTEQUAL:
      stats.insert({"min_value", "max_value"});
      return "NOT (" + min + " = " + constant + " AND " + max + " = " + constant + ")";
    case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
      stats.insert("max_value");
      return max + " >= " + constant;
    case ExpressionType::COMPARE_GREATERTHAN:
      stats.insert("max_value");
      return max + " > " + constant;
    case ExpressionType::COMPARE_LESSTHANOREQUALTO:
      stats.insert("min_value");
      return min + " <= " + constant;
    case ExpressionType::COMPARE_LESSTHAN:
      stats.insert("min_value");
      return min + " < " + constant;
    default:
      return "";
  }
}

std::string DoubleFilterSql(const duckdb::ConstantFilter& filter, const LogicalType& type,
                            std::set<std::string>& stats) {
  const bool nan = Value::IsNan(filter.constant.GetValue<double>());
  switch (filter.comparison_type) {
    case ExpressionType::COMPARE_EQUAL:
      if (nan) {
        stats.insert("contains_nan");
        return "contains_nan";
      }
      return ConstantFilterSql(filter, type, stats);
    case ExpressionType::COMPARE_GREATERTHANOREQUALTO:
    case ExpressionType::COMPARE_GREATERTHAN: {
      if (nan) return "";
      auto sql = ConstantFilterSql(filter, type, stats);
      if (sql.empty()) return "";
      stats.insert("contains_nan");
      return sql + " OR contains_nan";
    }
    case ExpressionType::COMPARE_NOTEQUAL:
    case ExpressionType::COMPARE_LESSTHANOREQUALTO:
    case ExpressionType::COMPARE_LESSTHAN:
      if (nan) return "";
      return ConstantFilterSql(filter, type, stats);
    default:
      return "";
  }
}

std::string FilterSql(const TableFilter& filter, std::set<std::string>& stats) {
  switch (filter.filter_type) {
    case TableFilterType::CONSTANT_COMPARISON: {
      const auto& constant = filter.Cast<duckdb::ConstantFilter>();
      const auto& type = constant.constant.type();
      if (type.id() == duckdb::LogicalTypeId::BLOB) return "";
      if (type.id() == duckdb::LogicalTypeId::DOUBLE) return DoubleFilterSql(constant, type, stats);
      return ConstantFilterSql(constant, type, stats);
    }
    case TableFilterType::IS_NULL:
      stats.insert("null_count");
      return "null_count > 0";
    case TableFilterType::IS_NOT_NULL:
      stats.insert("value_count");
      return "value_count > 0";
    case TableFilterType::CONJUNCTION_OR: {
      std::string result;
      for (const auto& child : filter.Cast<duckdb::ConjunctionOrFilter>().child_filters) {
        if (!result.empty()) result += " OR ";
        const auto sql = FilterSql(*child, stats);
        if (sql.empty()) return "";
        result += "(" + sql + ")";
      }
      return result;
    }
    case TableFilterType::CONJUNCTION_AND: {
      std::string result;
      for (const auto& child : filter.Cast<duckdb::ConjunctionAndFilter>().child_filters) {
        const auto sql = FilterSql(*child, stats);
        if (sql.empty()) continue;
        if (!result.empty()) result += " AND ";
        result += "(" + sql + ")";
      }
      return result;
    }
    case TableFilterType::OPTIONAL_FILTER:
      return FilterSql(*filter.Cast<duckdb::OptionalFilter>().child_filter, stats);
    case TableFilterType::IN_FILTER: {
      std::string result;
      for (const auto& value : filter.Cast<duckdb::InFilter>().values) {
        if (!result.empty()) result += " OR ";
        const auto sql =
            FilterSql(duckdb::ConstantFilter(ExpressionType::COMPARE_EQUAL, value), stats);
        if (sql.empty()) return "";
        result += "(" + sql + ")";
      }
      return result;
    }
    default:
      return "";
  }
}

// The ids of the stats rows DuckLake keeps (every row when it writes no
// condition): the inner query of its `data_file_id IN (...)`.
std::set<int64_t> KeptBySql(duckdb::Connection& connection, const TableFilter& filter) {
  std::set<std::string> stats;
  const auto condition = FilterSql(filter, stats);
  std::string where = "true";
  if (!condition.empty()) {
    std::string null_checks;
    for (const auto& stat : stats) null_checks += stat + " IS NULL OR ";
    where = null_checks + "(" + condition + ")";
    if (stats.count("min_value") || stats.count("max_value")) {
      where = "(value_count IS NULL OR value_count > 0) AND (" + where + ")";
    }
  }
  auto result = connection.Query("SELECT id FROM stats WHERE " + where);
  if (result->HasError()) ADD_FAILURE() << result->GetError() << "\nWHERE " << where;
  std::set<int64_t> kept;
  for (auto& row : *result) kept.insert(row.GetValue<int64_t>(0));
  return kept;
}

// ---- random filters and stats ------------------------------------------------

struct TypeCase {
  LogicalType type;
  std::vector<Value> values;         // constants a filter may use
  std::vector<std::string> garbage;  // stats text that does not cast
};

std::vector<TypeCase> Types() {
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const auto inf = std::numeric_limits<double>::infinity();
  return {
      {LogicalType::BIGINT,
       {Value::BIGINT(-5), Value::BIGINT(0), Value::BIGINT(3), Value::BIGINT(42),
        Value::BIGINT(1000), Value::BIGINT(std::numeric_limits<int64_t>::max())},
       {"abc", "", "4.5", "99999999999999999999"}},
      {LogicalType::INTEGER,
       {Value::INTEGER(-7), Value::INTEGER(0), Value::INTEGER(12), Value::INTEGER(2147483647)},
       {"3000000000", "1.5", "twelve"}},
      {LogicalType::USMALLINT,
       {Value::USMALLINT(0), Value::USMALLINT(9), Value::USMALLINT(65535)},
       {"-2", "70000", "s"}},
      {LogicalType::TINYINT,
       {Value::TINYINT(-3), Value::TINYINT(0), Value::TINYINT(7), Value::TINYINT(127)},
       {"300", "x"}},
      {LogicalType::UBIGINT,
       {Value::UBIGINT(0), Value::UBIGINT(12), Value::UBIGINT(18446744073709551615ULL)},
       {"-1", "q"}},
      {LogicalType::DOUBLE,
       {Value::DOUBLE(-1.5), Value::DOUBLE(0.1), Value::DOUBLE(2.0), Value::DOUBLE(1e20),
        Value::DOUBLE(nan), Value::DOUBLE(inf), Value::DOUBLE(-inf),
        Value::DOUBLE(0.30000000000000004)},
       {"nope", "nan", "inf", "-inf", "1e400"}},
      {LogicalType::DECIMAL(9, 2),
       {Value::DECIMAL(int32_t(-150), 9, 2), Value::DECIMAL(int32_t(1234), 9, 2),
        Value::DECIMAL(int32_t(5), 9, 2)},
       {"1.234", "z", "12345678901"}},
      {LogicalType::DATE,
       {Value::DATE(duckdb::Date::FromDate(2024, 1, 1)),
        Value::DATE(duckdb::Date::FromDate(1999, 12, 31)),
        Value::DATE(duckdb::Date::FromDate(2030, 6, 15))},
       {"2024-13-01", "yesterday", "2024-01-01 10:00:00"}},
      {LogicalType::TIMESTAMP,
       {Value::TIMESTAMP(duckdb::Timestamp::FromDatetime(duckdb::Date::FromDate(2024, 1, 1),
                                                         duckdb::dtime_t(0))),
        Value::TIMESTAMP(duckdb::Timestamp::FromDatetime(duckdb::Date::FromDate(2024, 1, 1),
                                                         duckdb::dtime_t(3600000000LL)))},
       {"2024-01-01", "nonsense"}},
      {LogicalType::BOOLEAN, {Value::BOOLEAN(false), Value::BOOLEAN(true)}, {"maybe", "2"}},
      {LogicalType::VARCHAR,
       {Value("a"), Value("apple"), Value("b'c"), Value(""), Value("zebra"), Value("Apple")},
       {}},
  };
}

class Random {
 public:
  explicit Random(uint64_t seed) : engine_(seed) {}
  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(engine_); }
  bool Chance(int percent) { return static_cast<int>(Below(100)) < percent; }

 private:
  std::mt19937_64 engine_;
};

duckdb::unique_ptr<TableFilter> RandomFilter(Random& random, const TypeCase& type, int depth) {
  static const ExpressionType kComparisons[] = {
      ExpressionType::COMPARE_EQUAL,        ExpressionType::COMPARE_NOTEQUAL,
      ExpressionType::COMPARE_LESSTHAN,     ExpressionType::COMPARE_LESSTHANOREQUALTO,
      ExpressionType::COMPARE_GREATERTHAN,  ExpressionType::COMPARE_GREATERTHANOREQUALTO,
      ExpressionType::COMPARE_DISTINCT_FROM};
  const auto value = [&] { return type.values[random.Below(type.values.size())]; };
  switch (depth > 1 ? random.Below(3) : random.Below(8)) {
    case 0:
    case 1:
    case 2:
      return duckdb::make_uniq<duckdb::ConstantFilter>(kComparisons[random.Below(7)], value());
    case 3:
      return random.Chance(50)
                 ? duckdb::unique_ptr<TableFilter>(duckdb::make_uniq<duckdb::IsNullFilter>())
                 : duckdb::make_uniq<duckdb::IsNotNullFilter>();
    case 4: {
      duckdb::vector<Value> values;
      for (size_t i = random.Below(3) + 1; i > 0; --i) values.push_back(value());
      return duckdb::make_uniq<duckdb::InFilter>(std::move(values));
    }
    case 5:
      return duckdb::make_uniq<duckdb::OptionalFilter>(RandomFilter(random, type, depth + 1));
    default: {
      duckdb::unique_ptr<duckdb::ConjunctionFilter> conjunction;
      if (random.Chance(50)) {
        conjunction = duckdb::make_uniq<duckdb::ConjunctionAndFilter>();
      } else {
        conjunction = duckdb::make_uniq<duckdb::ConjunctionOrFilter>();
      }
      for (size_t i = random.Below(3) + 1; i > 0; --i) {
        conjunction->child_filters.push_back(RandomFilter(random, type, depth + 1));
      }
      return conjunction;
    }
  }
}

std::optional<std::string> RandomStat(Random& random, const TypeCase& type) {
  if (random.Chance(10)) return std::nullopt;
  if (!type.garbage.empty() && random.Chance(10))
    return type.garbage[random.Below(type.garbage.size())];
  return type.values[random.Below(type.values.size())].ToString();
}

// The files `first` to `end` (exclusive) of `rows` as a data file summary
// page: their stats as the entries of column 1.
store::v1::DataFileSummaryPage PageOf(const std::vector<FileColumnStats>& rows, int first,
                                      int end) {
  store::v1::DataFileSummaryPage page;
  for (int id = first; id < end; ++id) {
    auto& file = *page.add_files();
    file.set_data_file_id(id);
    auto& column = *file.add_columns();
    column.set_column_id(1);
    const FileColumnStats& row = rows[id];
    if (row.min_value) column.set_min_value(*row.min_value);
    if (row.max_value) column.set_max_value(*row.max_value);
    if (row.null_count) column.set_null_count(*row.null_count);
    if (row.value_count) column.set_value_count(*row.value_count);
    if (row.contains_nan) column.set_contains_nan(*row.contains_nan);
  }
  return page;
}

TEST(FileStatsFilterProperty, KeepsExactlyTheFilesDuckLakesSqlKeeps) {
  duckdb::DuckDB database(nullptr);
  duckdb::Connection connection(database);
  const auto types = Types();
  // MORAINE_FILE_STATS_SEED runs other cases than the default seed's.
  const char* seed = std::getenv("MORAINE_FILE_STATS_SEED");
  Random random(seed ? std::stoull(seed) : 20261206);
  // The rows are grouped into pages by a generator of their own, so that the
  // cases are the same with or without the groups.
  Random grouping(seed ? std::stoull(seed) + 1 : 20261207);
  int compared = 0;
  int refused = 0;
  size_t pruned = 0;  // rows DuckLake's SQL pruned: the cases are not all trivial
  size_t groups = 0, groups_ruled_out = 0, integer_groups_ruled_out = 0;
  for (int run = 0; run < kCases; ++run) {
    const TypeCase& type = types[random.Below(types.size())];
    const auto filter = RandomFilter(random, type, 0);
    const auto mirrored = FileStatsFilter::FromTableFilter(*filter);
    if (!mirrored) {
      ++refused;
      continue;
    }
    connection.Query("DROP TABLE IF EXISTS stats");
    ASSERT_FALSE(connection
                     .Query("CREATE TABLE stats(id BIGINT, min_value VARCHAR, max_value VARCHAR, "
                            "null_count BIGINT, value_count BIGINT, contains_nan BOOLEAN)")
                     ->HasError());
    std::vector<FileColumnStats> rows;
    {
      duckdb::Appender appender(connection, "stats");
      for (int id = 0; id < kRowsPerCase; ++id) {
        FileColumnStats row{
            RandomStat(random, type), RandomStat(random, type),
            random.Chance(10) ? std::nullopt : std::optional<int64_t>(random.Below(3)),
            random.Chance(10) ? std::nullopt : std::optional<int64_t>(random.Below(3)),
            random.Chance(20) ? std::nullopt : std::optional<bool>(random.Chance(30))};
        const auto cell = [](const auto& value, auto make) {
          return value ? make(*value) : Value();
        };
        appender.AppendRow(Value::BIGINT(id), cell(row.min_value, [](auto v) { return Value(v); }),
                           cell(row.max_value, [](auto v) { return Value(v); }),
                           cell(row.null_count, [](auto v) { return Value::BIGINT(v); }),
                           cell(row.value_count, [](auto v) { return Value::BIGINT(v); }),
                           cell(row.contains_nan, [](auto v) { return Value::BOOLEAN(v); }));
        rows.push_back(row);
      }
    }
    const auto kept_by_sql = KeptBySql(connection, *filter);
    pruned += kRowsPerCase - kept_by_sql.size();
    for (int id = 0; id < kRowsPerCase; ++id) {
      EXPECT_EQ(mirrored->Keeps(&rows[id]), kept_by_sql.count(id) == 1)
          << "filter " << filter->ToString("x") << " of type " << type.type.ToString() << ", row "
          << id << ": min " << rows[id].min_value.value_or("NULL") << ", max "
          << rows[id].max_value.value_or("NULL");
    }
    EXPECT_TRUE(mirrored->Keeps(nullptr));  // a file without a stats row is never pruned
    for (int first = 0; first < kRowsPerCase;) {
      const int end = std::min(kRowsPerCase, first + 1 + static_cast<int>(grouping.Below(4)));
      const auto bounds = commit::files::BoundsOf(PageOf(rows, first, end));
      const auto* column = commit::files::FindColumn(bounds, 1);
      ASSERT_NE(column, nullptr);
      ++groups;
      if (!mirrored->MayKeepAnyOf(GroupStatsOf(*column))) {
        ++groups_ruled_out;
        if (column->has_min_integer() && RequiresValueComparison(type.type)) {
          ++integer_groups_ruled_out;
        }
        for (int id = first; id < end; ++id) {
          EXPECT_EQ(kept_by_sql.count(id), 0u)
              << "filter " << filter->ToString("x") << " of type " << type.type.ToString()
              << " ruled out files " << first << " to " << end - 1 << ", but keeps file " << id
              << ": min " << rows[id].min_value.value_or("NULL") << ", max "
              << rows[id].max_value.value_or("NULL");
        }
      }
      first = end;
    }
    ++compared;
  }
  EXPECT_GE(compared, kCases * 9 / 10) << refused << " filters refused";
  EXPECT_GT(pruned, static_cast<size_t>(kCases * kRowsPerCase / 10));
  // Groups are ruled out, some by their integer bounds.
  EXPECT_GT(groups_ruled_out, groups / 20) << groups << " groups";
  EXPECT_GT(integer_groups_ruled_out, 0u);
}

TEST(FileStatsFilter, RefusesWhatItDoesNotMirror) {
  EXPECT_FALSE(FileStatsFilter::FromTableFilter(
      duckdb::ConstantFilter(ExpressionType::COMPARE_EQUAL, Value::FLOAT(1.5f))));
  EXPECT_FALSE(FileStatsFilter::FromTableFilter(duckdb::ConstantFilter(
      ExpressionType::COMPARE_EQUAL, Value::UUID("1f0e9a6c-0000-4000-8000-000000000000"))));
  // A BLOB constant is DuckLake's "no condition": kept, not refused.
  const auto blob = FileStatsFilter::FromTableFilter(
      duckdb::ConstantFilter(ExpressionType::COMPARE_EQUAL, Value::BLOB("ab")));
  ASSERT_TRUE(blob);
  EXPECT_FALSE(blob->HasCondition());
}

}  // namespace
}  // namespace moraine::ducklake_adapter
