// Projected scans (ScanRequest): a scan that asks for fewer columns, no row
// handles, or live versions only returns the same rows in the same order,
// with exactly the asked-for cells, whether they come from the keys or the
// values.
#include <gtest/gtest.h>

#include "commit/rows/row_transaction.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Cell;
using catalog::Row;
using commit::RowHandle;
using commit::RowTransaction;
using commit::ScanRequest;
using test::ColumnRow;
using test::kNull;

// ducklake_column: column_id 0, begin_snapshot 1, end_snapshot 2, table_id 3,
// column_order 4, column_name 5; keyed (table_id, column_id).
constexpr size_t kColumnId = 0, kEnd = 2, kTableId = 3, kName = 5;

std::vector<std::pair<RowHandle, Row>> Scan(RowTransaction& txn, std::string_view table,
                                            const ScanRequest& request) {
  std::vector<std::pair<RowHandle, Row>> rows;
  txn.ScanProjected(table, request,
                    [&](RowHandle handle, const Row& row) { rows.emplace_back(handle, row); });
  return rows;
}

class ProjectedScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = dir_.path("lake.moraine")});
    auto init = commit::BeginRowTransaction(store_);
    test::InitializeLikeDuckLake(*init);
    for (int64_t table = 1; table <= 2; ++table) {
      for (int64_t column = 1; column <= 3; ++column) {
        init->Insert("ducklake_column", ColumnRow(table, column, "c", 1));
      }
    }
    init->Commit();
    // End one version (a rename): the table then holds a history row.
    auto rename = commit::BeginRowTransaction(store_);
    for (auto& [handle, row] : Scan(*rename, "ducklake_column", {})) {
      if (row[kTableId] != Cell(int64_t{1}) || row[kColumnId] != Cell(int64_t{2})) continue;
      Row ended = row;
      ended[kEnd] = int64_t{2};
      rename->Update("ducklake_column", handle, ended);
    }
    rename->Insert("ducklake_column", ColumnRow(1, 2, "c2", 2));
    rename->Insert("ducklake_snapshot",
                   {int64_t{1}, int64_t{1700000000000001}, int64_t{1}, int64_t{2}, int64_t{0}});
    rename->Commit();
  }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
};

TEST_F(ProjectedScanTest, AKeyOnlyProjectionReadsTheKeyCellsOfEveryRowInOrder) {
  auto txn = commit::BeginRowTransaction(store_);
  const auto full = Scan(*txn, "ducklake_column", {});
  ScanRequest request;
  request.columns = std::vector<size_t>{kTableId, kColumnId, kEnd};
  request.handles = false;
  const auto keys = Scan(*txn, "ducklake_column", request);
  ASSERT_EQ(keys.size(), full.size());
  ASSERT_EQ(keys.size(), 7u);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i].first, commit::kNoRowHandle);
    for (size_t column : {kTableId, kColumnId, kEnd}) {
      EXPECT_EQ(keys[i].second[column], full[i].second[column]) << "row " << i;
    }
    EXPECT_EQ(keys[i].second[kName], Cell(kNull));  // not asked for
  }
}

TEST_F(ProjectedScanTest, AValueProjectionDecodesOnlyTheAskedColumns) {
  auto txn = commit::BeginRowTransaction(store_);
  const auto full = Scan(*txn, "ducklake_column", {});
  ScanRequest request;
  request.columns = std::vector<size_t>{kName};
  request.handles = false;
  const auto names = Scan(*txn, "ducklake_column", request);
  ASSERT_EQ(names.size(), full.size());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names[i].second[kName], full[i].second[kName]);
    EXPECT_EQ(names[i].second[kTableId], Cell(kNull));
  }
}

TEST_F(ProjectedScanTest, HandlesKeepWholeRowsEvenWhenFewerColumnsAreAsked) {
  auto txn = commit::BeginRowTransaction(store_);
  ScanRequest request;
  request.columns = std::vector<size_t>{kTableId};
  const auto rows = Scan(*txn, "ducklake_column", request);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(txn->GetRow(rows[0].first), rows[0].second);
  EXPECT_EQ(rows[0].second[kName], Cell(std::string("c")));
}

TEST_F(ProjectedScanTest, EndSnapshotIsNullReadsLiveVersionsOnly) {
  auto txn = commit::BeginRowTransaction(store_);
  ScanRequest request;
  request.bounds = {{kEnd, std::nullopt, std::nullopt, true}};
  const auto live = Scan(*txn, "ducklake_column", request);
  ASSERT_EQ(live.size(), 6u);
  for (const auto& [handle, row] : live) EXPECT_EQ(row[kEnd], Cell(kNull));
  // A key column is never NULL: nothing matches.
  request.bounds = {{kTableId, std::nullopt, std::nullopt, true}};
  EXPECT_TRUE(Scan(*txn, "ducklake_column", request).empty());
}

TEST_F(ProjectedScanTest, ASnapshotIdScanSkipsRecordsWhoseRowIsAbsent) {
  auto txn = commit::BeginRowTransaction(store_);
  ScanRequest ids;
  ids.columns = std::vector<size_t>{0};
  ids.handles = false;
  ASSERT_EQ(Scan(*txn, "ducklake_snapshot", ids).size(), 2u);
  // Delete snapshot 0's ducklake_snapshot row; its changes row stays.
  for (auto& [handle, row] : Scan(*txn, "ducklake_snapshot", {})) {
    if (row[0] == Cell(int64_t{0})) txn->Delete("ducklake_snapshot", handle);
  }
  txn->Commit();
  auto next = commit::BeginRowTransaction(store_);
  const auto snapshots = Scan(*next, "ducklake_snapshot", ids);
  ASSERT_EQ(snapshots.size(), 1u);
  EXPECT_EQ(snapshots[0].second[0], Cell(int64_t{1}));
  EXPECT_EQ(Scan(*next, "ducklake_snapshot_changes", ids).size(), 1u);
}

}  // namespace
}  // namespace moraine
