// DuckLake's pruning of a table's data files by their column stats, decided
// in moraine instead of by DuckLake's SQL.
//
// For each column filter DuckDB pushes into a DuckLake scan, DuckLake's
// GenerateFilterPushdown writes a condition over the file's row of
// ducklake_file_column_stats for that column, and GetFilesForTable keeps a
// file when it has no such row, or when its row passes
//   (value_count IS NULL OR value_count > 0)      -- if min or max is read
//   AND (<each stat read> IS NULL OR ... OR <condition>)
// in SQL's three-valued logic (ducklake_metadata_manager.cpp at d8a1881e).
// FileStatsFilter is that condition as a tree evaluated on the row's values,
// shape for shape:
//   - x = C: C BETWEEN min AND max; x <> C: NOT (min = C AND max = C);
//     x > C, x >= C: max > C, max >= C; x < C, x <= C: min < C, min <= C;
//   - min and max are compared as C's type (DuckLake's TRY_CAST: a value
//     that does not cast is NULL) when that type is numeric, temporal or
//     boolean, and as text otherwise;
//   - FLOAT and DOUBLE constants: NaN equality reads contains_nan, > and >=
//     also keep a file that contains NaN, and NaN in any other comparison
//     gives no condition;
//   - IS NULL: null_count > 0; IS NOT NULL: value_count > 0;
//   - OR of children (no condition if any child has none), AND of the
//     children that have one, IN as an OR of equalities, an optional filter
//     as its child; any other filter, or a BLOB constant, gives none.
// A filter without a condition keeps every file, as DuckLake's does. The
// NULL checks name every stat DuckLake's generator read on its way, even in a
// branch it then dropped for want of a condition (it gathers them into one
// set as it goes), so a file with such a stat NULL is kept, as DuckLake keeps it.
//
// FromTableFilter refuses (nullopt) what it does not mirror exactly, so that
// DuckLake's own SQL answers instead: a dynamic (Top-N) filter, which DuckLake
// also uses to order the files; and constants whose comparison in DuckLake's
// SQL moraine does not reproduce value for value (FLOAT, whose SQL literal is
// widened to DOUBLE, and the types outside BOOLEAN, the integers, DOUBLE,
// DECIMAL, DATE, TIMESTAMP and VARCHAR).
//
// Thread-safety: immutable after construction; Keeps may be called from any
// thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "duckdb/planner/table_filter.hpp"

namespace moraine::ducklake_adapter {

// A file's row of ducklake_file_column_stats for one column, as stored.
struct FileColumnStats {
  std::optional<std::string> min_value;
  std::optional<std::string> max_value;
  std::optional<int64_t> null_count;
  std::optional<int64_t> value_count;
  std::optional<bool> contains_nan;
};

// What every file of a group (a data file summary page) has in common for
// one column: each present only when every file of the group has the stat.
struct FileGroupStats {
  // The least and greatest of the files' min_value and max_value texts,
  // bytewise; min_text when every file has a min_value, max_text when every
  // file has a max_value.
  std::optional<std::string> min_text;
  std::optional<std::string> max_text;
  // The same as integers, when every file's min_value and max_value is an
  // integer's canonical text.
  std::optional<std::pair<int64_t, int64_t>> integers;
  std::optional<int64_t> max_null_count;
  std::optional<int64_t> max_value_count;
  std::optional<bool> any_contains_nan;
};

class FileStatsFilter {
 public:
  struct Node;

  // The condition DuckLake writes for `filter`, or nullopt when DuckLake's
  // SQL must decide.
  static std::optional<FileStatsFilter> FromTableFilter(const duckdb::TableFilter& filter);

  // Whether DuckLake's SQL keeps a file whose stats row for the column is
  // `stats` (nullptr: the file has none).
  bool Keeps(const FileColumnStats* stats) const;

  // False only when Keeps is false for every file of a group whose stats
  // `group` bounds. Decided where the filter compares min and max as text,
  // or as values of an integer type or DOUBLE with the group's integer
  // bounds castable to it (then every file's min and max is a value between
  // them, and each comparison, a NOT included, moves with the bounds);
  // anything else keeps the group. Casts only what DuckDB parses without a
  // lookup, so it may be called under a lock.
  bool MayKeepAnyOf(const FileGroupStats& group) const;

  // Whether any file can be pruned: DuckLake wrote a condition.
  bool HasCondition() const { return root_ != nullptr; }

 private:
  FileStatsFilter(std::shared_ptr<const Node> root, unsigned stats_read);

  // How MayKeepAnyOf reads a group's min and max, decided once from the
  // condition's comparisons: as text, as integers, or not at all.
  enum class GroupBounds : uint8_t { kText, kIntegers, kUndecided };

  std::shared_ptr<const Node> root_;      // null: no condition
  unsigned stats_read_ = 0;               // the stats the condition reads, as bits
  std::vector<const Node*> comparisons_;  // the condition's comparisons, in root_'s tree
  GroupBounds group_bounds_ = GroupBounds::kUndecided;
};

}  // namespace moraine::ducklake_adapter
