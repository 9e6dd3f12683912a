// Proves the pinned stack: our code links libduckdb, registers the moraine
// storage extension, loads the stock DuckLake by path and runs DuckLake SQL.
#include <gtest/gtest.h>

#include <filesystem>

#include "duckdb.hpp"
#include "ducklake_adapter/host.h"
#include "support/must_query.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::MustQuery;

TEST(StackSmoke, DuckLakeOnStockCatalogEvolvesAndTimeTravels) {
  test::TempDir dir;
  ducklake_adapter::Host host;
  auto connection = host.Connect();
  MustQuery(*connection, "ATTACH 'ducklake:" + dir.path("stock.ducklake") +
                             "' AS lake (DATA_PATH '" + dir.path("files") + "/')");
  MustQuery(*connection, "CREATE TABLE lake.t (id INTEGER)");
  MustQuery(*connection, "INSERT INTO lake.t VALUES (1), (2)");
  MustQuery(*connection, "ALTER TABLE lake.t ADD COLUMN label VARCHAR DEFAULT 'x'");

  auto head = MustQuery(*connection, "SELECT id, label FROM lake.t ORDER BY id");
  ASSERT_EQ(head->RowCount(), 2u);
  EXPECT_EQ(head->GetValue(1, 1).ToString(), "x");

  auto before_alter = MustQuery(*connection, "SELECT * FROM lake.t AT (VERSION => 2)");
  EXPECT_EQ(before_alter->ColumnCount(), 1u);
}

TEST(StackSmoke, MoraineStorageExtensionIsRegistered) {
  test::TempDir dir;
  ducklake_adapter::Host host;
  auto connection = host.Connect();
  // `TYPE moraine` reaches our storage extension, which opens (and creates)
  // the store directory.
  MustQuery(*connection, "ATTACH '" + dir.path("store") + "' AS m (TYPE moraine)");
  EXPECT_TRUE(std::filesystem::is_directory(dir.path("store")));
  auto type =
      MustQuery(*connection, "SELECT type FROM duckdb_databases() WHERE database_name = 'm'");
  ASSERT_EQ(type->RowCount(), 1u);
  EXPECT_EQ(type->GetValue(0, 0).ToString(), "moraine");
  // A store DuckLake has not initialized has no tables: the probe DuckLake
  // runs must fail with a catalog error, which makes it initialize the lake.
  auto probe = connection->Query("SELECT NULL FROM m.main.ducklake_metadata LIMIT 1");
  ASSERT_TRUE(probe->HasError());
  EXPECT_EQ(probe->GetErrorType(), duckdb::ExceptionType::CATALOG) << probe->GetError();
}

TEST(StackSmoke, DuckLakeLoadsWithoutNetwork) {
  ducklake_adapter::Host host;
  auto connection = host.Connect();
  auto result = MustQuery(
      *connection, "SELECT loaded FROM duckdb_extensions() WHERE extension_name = 'ducklake'");
  ASSERT_EQ(result->RowCount(), 1u);
  EXPECT_TRUE(result->GetValue(0, 0).GetValue<bool>());
}

}  // namespace
}  // namespace moraine
