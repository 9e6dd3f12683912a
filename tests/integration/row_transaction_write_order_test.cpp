// Scans return rows in the order they were first written (records.proto,
// "Write ordinals"), as a DuckDB table does, not in key order: across
// commits, across current and history, for projections served from keys and
// for scans narrowed by keys; an update keeps a row's place.
#include <gtest/gtest.h>

#include "commit/rows/row_transaction.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Cell;
using catalog::Row;
using commit::ColumnBound;
using commit::RowHandle;
using commit::ScanRequest;
using test::ColumnRow;
using test::kNull;
using test::ScanAll;

// ducklake_column: column_id 0, end_snapshot 2, table_id 3, column_name 5.
constexpr size_t kColumnId = 0, kEnd = 2, kTableId = 3, kName = 5;

// (table_id, column_id, name) of each ducklake_column row a scan returns.
std::vector<std::tuple<int64_t, int64_t, std::string>> Columns(
    const std::vector<std::pair<RowHandle, Row>>& rows) {
  std::vector<std::tuple<int64_t, int64_t, std::string>> out;
  for (const auto& [handle, row] : rows) {
    out.emplace_back(
        std::get<int64_t>(row[kTableId]), std::get<int64_t>(row[kColumnId]),
        std::holds_alternative<std::string>(row[kName]) ? std::get<std::string>(row[kName]) : "");
  }
  return out;
}

class WriteOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = dir_.path("lake.moraine")});
    auto init = commit::BeginRowTransaction(store_);
    test::InitializeLikeDuckLake(*init);
    // Written out of key order: table 2 first.
    init->Insert("ducklake_column", ColumnRow(2, 1, "b1", 1));
    init->Insert("ducklake_column", ColumnRow(1, 1, "a1", 1));
    init->Commit();
    auto second = commit::BeginRowTransaction(store_);
    second->Insert("ducklake_column", ColumnRow(1, 2, "a2", 1));
    second->Commit();
  }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
};

using Expected = std::vector<std::tuple<int64_t, int64_t, std::string>>;

TEST_F(WriteOrderTest, AScanReturnsRowsInWriteOrderAcrossCommits) {
  auto txn = commit::BeginRowTransaction(store_);
  EXPECT_EQ(Columns(ScanAll(*txn, "ducklake_column")),
            (Expected{{2, 1, "b1"}, {1, 1, "a1"}, {1, 2, "a2"}}));
}

TEST_F(WriteOrderTest, AKeyOnlyProjectionKeepsWriteOrder) {
  auto txn = commit::BeginRowTransaction(store_);
  ScanRequest request;
  request.columns = std::vector<size_t>{kTableId, kColumnId};
  request.handles = false;
  const auto rows = ScanAll(*txn, "ducklake_column", request);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].second[kTableId], Cell(int64_t{2}));
  EXPECT_EQ(rows[1].second[kTableId], Cell(int64_t{1}));
  EXPECT_EQ(rows[2].second[kColumnId], Cell(int64_t{2}));
  EXPECT_EQ(rows[0].second[kName], Cell(kNull));  // not asked for
}

TEST_F(WriteOrderTest, AnUpdateKeepsTheRowsPlaceAndANewVersionComesLast) {
  {
    auto txn = commit::BeginRowTransaction(store_);
    for (auto& [handle, row] : ScanAll(*txn, "ducklake_column")) {
      if (row[kTableId] != Cell(int64_t{2})) continue;
      Row ended = row;
      ended[kEnd] = int64_t{2};  // to history
      txn->Update("ducklake_column", handle, ended);
    }
    txn->Insert("ducklake_column", ColumnRow(2, 1, "b1 renamed", 2));
    // Staged rows follow the committed ones, as DuckDB's local storage does.
    EXPECT_EQ(Columns(ScanAll(*txn, "ducklake_column")),
              (Expected{{2, 1, "b1"}, {1, 1, "a1"}, {1, 2, "a2"}, {2, 1, "b1 renamed"}}));
    txn->Commit();
  }
  auto txn = commit::BeginRowTransaction(store_);
  EXPECT_EQ(Columns(ScanAll(*txn, "ducklake_column")),
            (Expected{{2, 1, "b1"}, {1, 1, "a1"}, {1, 2, "a2"}, {2, 1, "b1 renamed"}}));
  // Narrowed by the leading key column: the same order within the range.
  ScanRequest narrowed;
  narrowed.bounds = {ColumnBound{kTableId, int64_t{2}, int64_t{2}}};
  EXPECT_EQ(Columns(ScanAll(*txn, "ducklake_column", narrowed)),
            (Expected{{2, 1, "b1"}, {2, 1, "b1 renamed"}}));
}

// Options: one container per scope, keyed global < table; an update in place
// keeps an option's place.
TEST_F(WriteOrderTest, OptionsComeInTheOrderTheyWereSetAndKeepTheirPlaceWhenUpdated) {
  const auto option = [](const std::string& key, const std::string& value, Cell scope,
                         Cell scope_id) {
    return Row{key, value, scope, scope_id};
  };
  {
    auto txn = commit::BeginRowTransaction(store_);
    txn->Insert("ducklake_metadata", option("a", "1", std::string("table"), int64_t{1}));
    txn->Insert("ducklake_metadata", option("b", "2", kNull, kNull));
    txn->Commit();
  }
  auto txn = commit::BeginRowTransaction(store_);
  for (auto& [handle, row] : ScanAll(*txn, "ducklake_metadata")) {
    if (row[0] != Cell(std::string("a"))) continue;
    Row updated = row;
    updated[1] = std::string("3");
    txn->Update("ducklake_metadata", handle, updated);
  }
  std::vector<std::string> keys;
  for (const auto& [handle, row] : ScanAll(*txn, "ducklake_metadata")) {
    keys.push_back(std::get<std::string>(row[0]) + "=" + std::get<std::string>(row[1]));
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"version=1.0", "a=3", "b=2"}));
}

}  // namespace
}  // namespace moraine
