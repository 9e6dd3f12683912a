// The staged-row path, for what upstream DuckLake tests found: the schema a
// catalog is served under (METADATA_SCHEMA) persists with the store, a store
// holds one catalog only, and a versioned table's ended and live rows come
// back in the order they were written (as from DuckLake's own DuckDB-file
// catalog, where ending a version updates its row in place).
#include <gtest/gtest.h>

#include "catalog/ducklake_tables.h"
#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Cell;
using catalog::Row;
using commit::BeginRowTransaction;
using commit::ColumnBound;
using commit::RowHandle;
using commit::RowTransaction;
using commit::TableSpec;

using test::ColumnRow;
using test::InitializeLikeDuckLake;
using test::kNull;

std::vector<Row> Rows(RowTransaction& txn, std::string_view table,
                      const std::vector<ColumnBound>& bounds = {}) {
  std::vector<Row> rows;
  txn.Scan(table, bounds, [&](RowHandle, const Row& row) { rows.push_back(row); });
  return rows;
}

// The handle of the first row of `table` whose cell `column` is `value`.
RowHandle HandleOf(RowTransaction& txn, std::string_view table, size_t column, const Cell& value) {
  std::optional<RowHandle> found;
  txn.Scan(table, {}, [&](RowHandle handle, const Row& row) {
    if (!found && row[column] == value) found = handle;
  });
  EXPECT_TRUE(found.has_value());
  return found.value_or(0);
}

Row MacroRow(int64_t macro_id, int64_t begin, Cell end = kNull) {
  return {int64_t{0}, macro_id, std::string("simple"), begin, end};
}

class RowTransactionSchema : public ::testing::Test {
 protected:
  std::shared_ptr<store::KvStore> Open() {
    return store::OpenKvStore({.location = dir_.path("lake.moraine")});
  }
  test::TempDir dir_;
};

TEST_F(RowTransactionSchema, AFreshStoreServesMainUntilACatalogIsCreatedUnderAnotherName) {
  {
    auto store = Open();
    auto txn = BeginRowTransaction(store);
    EXPECT_EQ(txn->SchemaName(), "main");
    txn->CreateSchema("'quoted' catalog \"schema\"");
    EXPECT_EQ(txn->SchemaName(), "'quoted' catalog \"schema\"");
    InitializeLikeDuckLake(*txn);
    txn->Commit();
  }
  // The name is in the store, not in this process.
  auto store = Open();
  auto next = BeginRowTransaction(store);
  EXPECT_EQ(next->SchemaName(), "'quoted' catalog \"schema\"");
  EXPECT_EQ(Rows(*next, "ducklake_snapshot").size(), 1u);
}

TEST_F(RowTransactionSchema, AStoreHoldsOneCatalogUnderOneName) {
  auto store = Open();
  {
    auto txn = BeginRowTransaction(store);
    txn->CreateSchema("metadata_s1");
    InitializeLikeDuckLake(*txn);
    txn->Commit();
  }
  auto txn = BeginRowTransaction(store);
  EXPECT_THROW(txn->CreateSchema("metadata_s1"), store::ConstraintError);
  try {
    txn->CreateSchema("metadata_s2");
    ADD_FAILURE() << "a second schema was accepted";
  } catch (const store::InvalidArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("exactly one DuckLake catalog"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("metadata_s1"), std::string::npos) << error.what();
  }
  EXPECT_THROW(txn->CreateSchema("main"), store::InvalidArgumentError);
  EXPECT_EQ(txn->SchemaName(), "metadata_s1");
}

TEST_F(RowTransactionSchema, ACatalogCreatedUnderMainKeepsMain) {
  auto store = Open();
  {
    auto txn = BeginRowTransaction(store);
    InitializeLikeDuckLake(*txn);
    txn->Commit();
  }
  auto txn = BeginRowTransaction(store);
  EXPECT_EQ(txn->SchemaName(), "main");
  EXPECT_THROW(txn->CreateSchema("main"), store::ConstraintError);
  EXPECT_THROW(txn->CreateSchema("metadata_s1"), store::InvalidArgumentError);
}

TEST_F(RowTransactionSchema, ANameThatNeverCommittedIsForgotten) {
  auto store = Open();
  {
    auto txn = BeginRowTransaction(store);
    txn->CreateSchema("metadata_s1");
    EXPECT_THROW(txn->CreateSchema("metadata_s2"), store::InvalidArgumentError);
    txn->Rollback();
  }
  auto txn = BeginRowTransaction(store);
  EXPECT_EQ(txn->SchemaName(), "main");
  txn->CreateSchema("metadata_s2");
  EXPECT_EQ(txn->SchemaName(), "metadata_s2");
}

class RowTransactionOrder : public RowTransactionSchema {
 protected:
  void SetUp() override {
    store_ = Open();
    auto init = BeginRowTransaction(store_);
    InitializeLikeDuckLake(*init);
    init->Commit();
  }
  std::shared_ptr<store::KvStore> store_;
};

// DuckLake's own catalog returns a dropped-and-recreated macro's rows in the
// order they were inserted; upstream's test_simple_macro.test reads them so.
TEST_F(RowTransactionOrder, EndedVersionsComeBackInIdentityOrderWithLiveOnes) {
  {
    auto txn = BeginRowTransaction(store_);
    txn->Insert("ducklake_macro", MacroRow(1, 1));
    txn->Commit();
  }
  {
    auto txn = BeginRowTransaction(store_);
    txn->Update("ducklake_macro", HandleOf(*txn, "ducklake_macro", 1, int64_t{1}),
                MacroRow(1, 1, int64_t{2}));
    txn->Commit();
  }
  {
    auto txn = BeginRowTransaction(store_);
    txn->Insert("ducklake_macro", MacroRow(2, 3));
    txn->Commit();
  }
  auto txn = BeginRowTransaction(store_);
  EXPECT_EQ(Rows(*txn, "ducklake_macro"),
            (std::vector<Row>{MacroRow(1, 1, int64_t{2}), MacroRow(2, 3)}));
}

TEST_F(RowTransactionOrder, EndedVersionsKeepTheirPlaceAndNewVersionsComeLast) {
  {
    auto txn = BeginRowTransaction(store_);
    txn->Insert("ducklake_column", ColumnRow(1, 1, "a", 1));
    txn->Insert("ducklake_column", ColumnRow(1, 2, "b", 1));
    txn->Insert("ducklake_column", ColumnRow(2, 1, "x", 1));
    txn->Commit();
  }
  // Rename column (1, 1) twice: two ended versions, one live.
  for (int64_t snapshot : {2, 3}) {
    auto txn = BeginRowTransaction(store_);
    std::optional<RowHandle> live;
    txn->Scan("ducklake_column", {}, [&](RowHandle handle, const Row& row) {
      if (row[3] == Cell(int64_t{1}) && row[0] == Cell(int64_t{1}) && row[2] == kNull)
        live = handle;
    });
    ASSERT_TRUE(live);
    Row ended = txn->GetRow(*live);
    ended[2] = snapshot;
    txn->Update("ducklake_column", *live, ended);
    txn->Insert("ducklake_column", ColumnRow(1, 1, "a" + std::to_string(snapshot), snapshot));
    txn->Commit();
  }
  const std::vector<Row> expected = {ColumnRow(1, 1, "a", 1, int64_t{2}), ColumnRow(1, 2, "b", 1),
                                     ColumnRow(2, 1, "x", 1), ColumnRow(1, 1, "a2", 2, int64_t{3}),
                                     ColumnRow(1, 1, "a3", 3)};
  auto txn = BeginRowTransaction(store_);
  EXPECT_EQ(Rows(*txn, "ducklake_column"), expected);
  // A scan narrowed to one table keeps the same order.
  const size_t table_id_column = 3;
  EXPECT_EQ(Rows(*txn, "ducklake_column", {{table_id_column, int64_t{1}, int64_t{1}}}),
            (std::vector<Row>{expected[0], expected[1], expected[3], expected[4]}));
}

}  // namespace
}  // namespace moraine
