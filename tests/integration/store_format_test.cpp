// The store format axis: sys/format gates which stores a build opens, and an
// explicit migrate upgrades an older store in place without losing a row.
#include "commit/migrations/store_format.h"

#include <gtest/gtest.h>

#include <map>

#include "catalog/row_mapping.h"
#include "commit/rows/row_transaction.h"
#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/catalog_dump.h"
#include "support/store_format_record.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using commit::Transaction;

using test::DumpCatalog;

class StoreFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = commit::Catalog::Open({.location = location_});
    catalog->Commit([](Transaction& txn) {
      const auto t = txn.CreateTable("main", "t", {ColumnDef::Leaf("a", "int32")});
      txn.AddColumn(t, {}, ColumnDef::Struct("s", {ColumnDef::Leaf("x", "int32")}));
    });
    catalog->Commit([](Transaction& txn) { txn.RenameColumn(1, {"a"}, "a2"); });
    catalog->Commit([](Transaction& txn) { txn.RegisterDataFile(1, "f.parquet", 3, 100); });
  }

  test::TempDir dir_;
  const std::string location_ = dir_.path("lake.moraine");
};

TEST_F(StoreFormatTest, ANewStoreIsWrittenInThisBuildsFormat) {
  auto store = store::OpenKvStore({.location = location_, .read_only = true});
  EXPECT_EQ(commit::ReadStoreFormat(*store->GetSnapshot()), commit::kStoreFormatVersion);
  EXPECT_FALSE(commit::MigrateStore(location_).migrated());
}

TEST_F(StoreFormatTest, ANewerStoreIsRefusedNamingBothVersions) {
  test::WriteStoreFormat(location_, commit::kStoreFormatVersion + 1);
  try {
    commit::Catalog::Open({.location = location_});
    FAIL() << "a newer store must be refused";
  } catch (const store::UnsupportedVersionError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("format " + std::to_string(commit::kStoreFormatVersion + 1)),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("format " + std::to_string(commit::kStoreFormatVersion)),
              std::string::npos)
        << message;
  }
  EXPECT_THROW(commit::MigrateStore(location_), store::UnsupportedVersionError);
}

TEST_F(StoreFormatTest, AStoreThatPredatesTheFormatRecordMigratesWithoutLosingARow) {
  const auto before = DumpCatalog(location_);
  test::WriteStoreFormat(location_, std::nullopt);  // what a format-0 store looks like
  try {
    commit::Catalog::Open({.location = location_});
    FAIL() << "a format-0 store must ask for a migration";
  } catch (const store::UnsupportedVersionError& error) {
    EXPECT_NE(std::string(error.what()).find("moraine_migrate('" + location_ + "')"),
              std::string::npos)
        << error.what();
  }

  const auto report = commit::MigrateStore(location_);
  EXPECT_EQ(report.from, 0u);
  EXPECT_EQ(report.to, commit::kStoreFormatVersion);
  EXPECT_EQ(DumpCatalog(location_), before);
  size_t rows = 0;
  for (const auto& [table, table_rows] : before) rows += table_rows.size();
  EXPECT_GT(rows, 10u);  // the comparison covered a real catalog

  const auto again = commit::MigrateStore(location_);  // idempotent
  EXPECT_FALSE(again.migrated());
  auto catalog = commit::Catalog::Open({.location = location_});
  EXPECT_EQ(catalog->Head()->Table(1)->FindColumn(catalog::ColumnPath{"a2"})->column_id(), 1);
}

// Store format 2 kept an inlined data table's rows a record each; migrate
// moves them into one batch per begin snapshot, cell for cell.
TEST_F(StoreFormatTest, AFormatTwoStoresInlinedRowsMigrateIntoBatches) {
  const std::string table = "ducklake_inlined_data_1_7";
  using Cells = std::vector<catalog::Cell>;
  const catalog::Cell null = std::monostate{};
  {
    std::shared_ptr<store::KvStore> store = store::OpenKvStore({.location = location_});
    auto txn = commit::BeginRowTransaction(store);
    txn->CreateTable({table,
                      {{"row_id", "BIGINT"},
                       {"begin_snapshot", "BIGINT"},
                       {"end_snapshot", "BIGINT"},
                       {"v", "VARCHAR"}},
                      {}});
    txn->Commit();
    store::WriteBatch batch;
    auto put = [&](uint64_t row, uint64_t begin, std::optional<int64_t> end,
                   std::optional<std::string> v) {
      store::v1::InlinedRowRecord record;
      record.set_row_id(static_cast<int64_t>(row));
      record.set_begin_snapshot(static_cast<int64_t>(begin));
      if (end) record.set_end_snapshot(*end);
      auto* cell = record.add_cells();
      if (v) cell->set_value(*v);
      batch.Put(store::Key::Current(store::Kind::kInlinedRow, {1, 7, row, begin}).Encode(),
                store::FrameValue(store::Kind::kInlinedRow, record));
    };
    put(0, 2, std::nullopt, "a");
    put(1, 2, 3, std::nullopt);
    put(1, 3, std::nullopt, "b2");
    put(2, 3, std::nullopt, "c");
    store->Write(batch);
  }
  test::WriteStoreFormat(location_, 2);
  EXPECT_THROW(commit::Catalog::Open({.location = location_}), store::UnsupportedVersionError);

  const auto report = commit::MigrateStore(location_);
  EXPECT_EQ(report.from, 2u);
  EXPECT_EQ(report.to, commit::kStoreFormatVersion);
  std::shared_ptr<store::KvStore> store = store::OpenKvStore({.location = location_});
  auto keys = [&](store::Kind kind) {
    size_t count = 0;
    for (auto it =
             store->GetSnapshot()->Scan(store::PrefixRange(store::Subspace::kInlineData, kind, {}));
         it->Valid(); it->Next()) {
      ++count;
    }
    return count;
  };
  EXPECT_EQ(keys(store::Kind::kInlinedRow), 0u);
  EXPECT_EQ(keys(store::Kind::kInlinedRowBatch), 2u);
  std::vector<Cells> rows;
  commit::BeginRowTransaction(store)->Scan(
      table, {}, [&](commit::RowHandle, const catalog::Row& row) { rows.push_back(row); });
  EXPECT_EQ(rows, (std::vector<Cells>{
                      {int64_t{0}, int64_t{2}, null, catalog::OpaqueValue{"a"}},
                      {int64_t{1}, int64_t{2}, int64_t{3}, null},
                      {int64_t{1}, int64_t{3}, null, catalog::OpaqueValue{"b2"}},
                      {int64_t{2}, int64_t{3}, null, catalog::OpaqueValue{"c"}},
                  }));
}

TEST(StoreFormat, MigratingNothingIsATypedError) {
  test::TempDir dir;
  EXPECT_THROW(commit::MigrateStore(dir.path("absent")), store::NotFoundError);
}

}  // namespace
}  // namespace moraine
