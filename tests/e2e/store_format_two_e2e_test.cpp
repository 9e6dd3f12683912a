// Store format 2 packs column stats into one container per data file or
// table. A format-1 store (a record per stats row) that DuckLake wrote with
// stats of every kind is refused at ATTACH with the command that upgrades it,
// and `moraine migrate` upgrades it in one batch with every ducklake_* row
// unchanged.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "catalog/row_mapping.h"
#include "commit/lake/store_records.h"
#include "commit/migrations/store_format.h"
#include "commit/rows/row_transaction.h"
#include "store/key_range.h"
#include "support/catalog_dump.h"
#include "support/ducklake_session.h"
#include "support/format_one_stats.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::DuckLakeSession;
using test::Rows;

using test::DumpCatalog;

size_t KeysOfKind(const std::string& location, store::Kind kind) {
  auto store = store::OpenKvStore({.location = location, .read_only = true});
  auto snapshot = store->GetSnapshot();
  size_t keys = 0;
  for (auto it = snapshot->Scan(store::PrefixRange(store::Subspace::kCurrent, kind, {}));
       it->Valid(); it->Next()) {
    ++keys;
  }
  return keys;
}

class StoreFormatTwoTest : public ::testing::Test {
 protected:
  std::string Attach() const {
    return "ATTACH 'ducklake:moraine:" + location_ + "' AS lake (DATA_PATH '" + dir_.path("files") +
           "', DATA_INLINING_ROW_LIMIT 0)";
  }
  test::TempDir dir_;
  const std::string location_ = dir_.path("lake.moraine");
};

TEST_F(StoreFormatTwoTest, AFormatOneStoreWithStatsMigratesWithEveryRowUnchanged) {
  {
    DuckLakeSession session;
    session.Run(Attach());
    session.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR, price DOUBLE)");
    session.Run("INSERT INTO lake.t SELECT i, 'n' || i, i / 4 FROM range(0, 50) r(i)");
    session.Run("INSERT INTO lake.t SELECT i, NULL, i FROM range(50, 60) r(i)");
    session.Run("DELETE FROM lake.t WHERE id % 7 = 0");
    session.Run("UPDATE lake.t SET price = -1 WHERE id = 3");
    session.Run("ALTER TABLE lake.t ADD COLUMN extra BIGINT");
    session.Run("INSERT INTO lake.t VALUES (100, 'x', 1.5, 42)");
    session.Run("CREATE TABLE lake.var (id INTEGER, j VARIANT)");
    session.Run(
        "INSERT INTO lake.var SELECT i, (CASE WHEN i % 2 = 0 THEN i::VARIANT ELSE ('s' || "
        "i)::VARIANT END) FROM range(0, 30) r(i)");
    session.Run(
        "INSERT INTO lake.var SELECT i, {'a': i, 'b': 's' || i}::VARIANT FROM "
        "range(30, 60) r(i)");
  }
  const auto before = DumpCatalog(location_);
  EXPECT_GT(before.at("ducklake_file_column_stats").size(), 10u);
  EXPECT_GE(before.at("ducklake_table_column_stats").size(), 5u);
  EXPECT_GT(before.at("ducklake_file_variant_stats").size(), 0u);

  const size_t moved = test::RewriteStatsAsFormatOne(location_);
  EXPECT_EQ(moved, before.at("ducklake_file_column_stats").size() +
                       before.at("ducklake_table_column_stats").size() +
                       before.at("ducklake_file_variant_stats").size());
  EXPECT_EQ(KeysOfKind(location_, store::Kind::kFileColumnStats),
            before.at("ducklake_file_column_stats").size());
  EXPECT_EQ(KeysOfKind(location_, store::Kind::kFileColumnStatsSet), 0u);

  {
    DuckLakeSession refused;
    const std::string error = refused.Error(Attach());
    EXPECT_NE(error.find("moraine migrate " + location_), std::string::npos) << error;
  }

  const auto report = commit::MigrateStore(location_);
  EXPECT_EQ(report.from, 1u);
  EXPECT_EQ(report.to, commit::kStoreFormatVersion);
  EXPECT_EQ(DumpCatalog(location_), before);
  for (auto kind : {store::Kind::kFileColumnStats, store::Kind::kTableColumnStats,
                    store::Kind::kFileVariantStats}) {
    EXPECT_EQ(KeysOfKind(location_, kind), 0u) << store::GetKindInfo(kind).name;
  }
  // One container per data file, one per table.
  EXPECT_EQ(KeysOfKind(location_, store::Kind::kTableColumnStatsSet), 2u);
  test::ExpectStoreVerifies(location_);
  EXPECT_FALSE(commit::MigrateStore(location_).migrated());

  DuckLakeSession session;
  session.Run(Attach());
  EXPECT_EQ(session.Query("SELECT count(*), sum(id), min(price) FROM lake.t"),
            (Rows{{"52", "1618", "-1.0"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t WHERE id = 55"), (Rows{{"1"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.var WHERE j.a::INTEGER > 50"), (Rows{{"9"}}));
  session.Run("INSERT INTO lake.t VALUES (200, 'y', 2.5, 43)");
  EXPECT_EQ(session.Query("SELECT max(id) FROM lake.t"), (Rows{{"200"}}));
}

}  // namespace
}  // namespace moraine
