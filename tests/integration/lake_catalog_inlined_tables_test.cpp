// The inlined data tables the catalog hands DuckLake (commit/lake/lake_catalog.h)
// on a real on-disk RocksDB store: a superseded one without rows is left out,
// whether read whole or advanced past a commit that gives it rows.
#include <gtest/gtest.h>

#include "commit/lake/catalog_caching_store.h"
#include "commit/lake/lake_catalog.h"
#include "commit/verbs/catalog.h"
#include "support/catalog_fixture.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Id;
using catalog::OpaqueValue;
using commit::Transaction;

class LakeCatalogInlinedTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<commit::CatalogCachingStore>(
        store::OpenKvStore({.location = dir_.path("lake.moraine")}));
    catalog_ = commit::Catalog::Open(store_);
    catalog_->Commit([&](Transaction& txn) {
      table_ = txn.CreateTable("main", "t", test::IntColumns({"a", "b"}));
    });
    versions_.push_back(catalog_->Head()->schema_version());
    for (const char* name : {"x", "y", "z"}) {
      catalog_->Commit([&](Transaction& txn) { txn.RenameColumn(table_, {"a"}, name); });
      catalog_->Commit([&](Transaction& txn) { txn.RenameColumn(table_, {name}, "a"); });
      versions_.push_back(catalog_->Head()->schema_version());
    }
  }

  // Inserts one row into the inlined data table of schema version `version`.
  void InsertInto(Id version) {
    auto rows = commit::BeginRowTransaction(commit::CommitStore(store_));
    const Id snapshot = rows->LatestSnapshot()->snapshot_id;
    rows->Insert(catalog::InlinedDataTableName(table_, version),
                 {int64_t{static_cast<int64_t>(version)}, int64_t{snapshot}, catalog::Cell{},
                  OpaqueValue{"1"}, OpaqueValue{"2"}});
    rows->Commit();
  }

  // The schema versions of the table's inlined data tables in the catalog at
  // the head, read whole (`cached` false) or as the store's cache serves it.
  std::vector<int64_t> Listed(bool cached) {
    auto rows = commit::BeginRowTransaction(commit::CommitStore(store_));
    const int64_t head = rows->LatestSnapshot()->snapshot_id;
    const auto catalog = cached ? store_->head_catalog().AtHead(*rows, head, "/lake/", "/").catalog
                                : std::make_shared<const commit::LakeCatalog>(
                                      commit::ReadLakeCatalog(*rows, head, "/lake/", "/"));
    rows->Rollback();
    std::vector<int64_t> versions;
    for (const auto& table : catalog->tables) {
      if (table->id != table_) continue;
      for (const auto& inlined : table->inlined_data_tables) {
        versions.push_back(inlined.schema_version);
      }
    }
    return versions;
  }

  test::TempDir dir_;
  std::shared_ptr<commit::CatalogCachingStore> store_;
  std::unique_ptr<commit::Catalog> catalog_;
  Id table_ = 0;
  // Schema versions that have an inlined data table, oldest first: the
  // table's first and every other one after (each rename makes one).
  std::vector<Id> versions_;
};

TEST_F(LakeCatalogInlinedTablesTest, ASupersededTableWithoutRowsIsLeftOut) {
  InsertInto(versions_[1]);
  const std::vector<int64_t> expected{versions_[1], versions_.back()};
  EXPECT_EQ(Listed(false), expected);
  EXPECT_EQ(Listed(true), expected);
}

TEST_F(LakeCatalogInlinedTablesTest, ACachedCatalogListsATableLeftOutOnceItHasRows) {
  ASSERT_EQ(Listed(true), std::vector<int64_t>{versions_.back()});
  InsertInto(versions_[2]);
  const std::vector<int64_t> expected{versions_[2], versions_.back()};
  EXPECT_EQ(Listed(true), expected);
  EXPECT_EQ(Listed(false), expected);
}

}  // namespace
}  // namespace moraine
