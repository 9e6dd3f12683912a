// Column stats on the staged-row path (store format 2): a data file's
// column stats are entries of one container per data file, a table's of one
// per table, kept in column_id order. However wide the table, a commit
// writes one key per container, and the rows come back as a record per row
// gave them: in (table, file, column) order, duplicates refused, each row
// updated or deleted alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "store/key_range.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Cell;
using catalog::Row;
using commit::ColumnBound;
using commit::RowHandle;
using commit::RowTransaction;
using test::kNull;

constexpr std::string_view kTableStats = "ducklake_table_column_stats";
constexpr std::string_view kFileStats = "ducklake_file_column_stats";

// (table_id, column_id, contains_null, contains_nan, min, max, extra_stats)
Row TableStats(int64_t table, int64_t column, const std::string& max) {
  return {table, column, false, kNull, std::string("0"), max, kNull};
}

// (data_file_id, table_id, column_id, size, values, nulls, min, max, nan, extra)
Row FileStats(int64_t file, int64_t table, int64_t column) {
  return {file,        table,      column,           int64_t{100},
          int64_t{10}, int64_t{0}, std::string("a"), std::string("z"),
          kNull,       kNull};
}

class RowTransactionStatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = dir_.path("lake.moraine")});
    auto init = Begin();
    test::InitializeLikeDuckLake(*init);
    init->Commit();
  }
  std::unique_ptr<RowTransaction> Begin() { return commit::BeginRowTransaction(store_); }

  std::vector<Row> Rows(std::string_view table, const std::vector<ColumnBound>& bounds = {}) {
    auto txn = Begin();
    std::vector<Row> rows;
    txn->Scan(table, bounds, [&](RowHandle, const Row& row) { rows.push_back(row); });
    return rows;
  }
  size_t Keys(store::Kind kind) {
    size_t count = 0;
    auto view = store_->GetSnapshot();
    for (auto it = view->Scan(store::PrefixRange(store::Subspace::kCurrent, kind)); it->Valid();
         it->Next()) {
      ++count;
    }
    return count;
  }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
};

TEST_F(RowTransactionStatsTest, AWideTablesStatsAreOneKeyAndComeBackInColumnOrder) {
  auto txn = Begin();
  // Out of order on purpose: the entries are kept sorted all the same.
  for (int64_t column = 500; column >= 1; --column) {
    txn->Insert(kTableStats, TableStats(1, column, std::to_string(column)));
    txn->Insert(kFileStats, FileStats(7, 1, column));
  }
  txn->Insert(kTableStats, TableStats(2, 1, "x"));
  txn->Commit();
  EXPECT_EQ(Keys(store::Kind::kTableColumnStatsSet), 2u);
  EXPECT_EQ(Keys(store::Kind::kFileColumnStatsSet), 1u);
  const auto rows = Rows(kTableStats);
  ASSERT_EQ(rows.size(), 501u);
  for (int64_t i = 0; i < 500; ++i) EXPECT_EQ(rows[i], TableStats(1, i + 1, std::to_string(i + 1)));
  EXPECT_EQ(rows[500], TableStats(2, 1, "x"));
  EXPECT_EQ(Rows(kFileStats).size(), 500u);
}

TEST_F(RowTransactionStatsTest, BoundsOnTheColumnNarrowAndTheAnswerIsExact) {
  auto txn = Begin();
  for (int64_t file : {7, 8}) {
    for (int64_t column = 1; column <= 20; ++column)
      txn->Insert(kFileStats, FileStats(file, 1, column));
  }
  txn->Commit();
  // column_id (2) between 5 and 6, data_file_id (0) = 8, table_id (1) = 1.
  const auto rows =
      Rows(kFileStats,
           {{2, int64_t{5}, int64_t{6}}, {0, int64_t{8}, int64_t{8}}, {1, int64_t{1}, int64_t{1}}});
  EXPECT_EQ(rows, (std::vector<Row>{FileStats(8, 1, 5), FileStats(8, 1, 6)}));
  EXPECT_EQ(Rows(kFileStats, {{2, int64_t{20}, std::nullopt}}).size(), 2u);
  EXPECT_TRUE(Rows(kFileStats, {{2, std::nullopt, std::nullopt, true}}).empty());
}

TEST_F(RowTransactionStatsTest, ADuplicateColumnIsRefusedAndChangesNothing) {
  auto txn = Begin();
  txn->Insert(kTableStats, TableStats(1, 3, "a"));
  EXPECT_THROW(txn->Insert(kTableStats, TableStats(1, 3, "b")), store::ConstraintError);
  txn->Commit();
  EXPECT_EQ(Rows(kTableStats), (std::vector<Row>{TableStats(1, 3, "a")}));
}

TEST_F(RowTransactionStatsTest, RowsAreUpdatedAndDeletedOneByOne) {
  {
    auto txn = Begin();
    for (int64_t column = 1; column <= 4; ++column) {
      txn->Insert(kTableStats, TableStats(1, column, "m"));
    }
    txn->Commit();
  }
  {
    auto txn = Begin();
    txn->Scan(kTableStats, {}, [&](RowHandle handle, const Row& row) {
      if (row[1] == Cell(int64_t{2})) txn->Update(kTableStats, handle, TableStats(1, 2, "new"));
      if (row[1] == Cell(int64_t{3})) txn->Delete(kTableStats, handle);
    });
    txn->Commit();
  }
  EXPECT_EQ(Rows(kTableStats), (std::vector<Row>{TableStats(1, 1, "m"), TableStats(1, 2, "new"),
                                                 TableStats(1, 4, "m")}));
  {
    auto txn = Begin();
    txn->Scan(kTableStats, {},
              [&](RowHandle handle, const Row&) { txn->Delete(kTableStats, handle); });
    txn->Commit();
  }
  EXPECT_TRUE(Rows(kTableStats).empty());
  EXPECT_EQ(Keys(store::Kind::kTableColumnStatsSet), 0u);  // the emptied container is gone
}

}  // namespace
}  // namespace moraine
