// moraine as a loadable extension, in a program that links libduckdb but not
// moraine: the DuckDB here has no moraine registered until LOAD.
#include <gtest/gtest.h>

#include "duckdb.hpp"
#include "support/must_query.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::MustQuery;

TEST(LoadableExtension, LoadsIntoAPlainDuckDBAndServesALake) {
  test::TempDir dir;
  duckdb::DBConfig config;
  config.SetOptionByName("allow_unsigned_extensions", duckdb::Value::BOOLEAN(true));
  config.SetOptionByName("autoinstall_known_extensions", duckdb::Value::BOOLEAN(false));
  // Nothing from the user's own extension directory: a moraine installed
  // there would be autoloaded by the probe below.
  config.SetOptionByName("autoload_known_extensions", duckdb::Value::BOOLEAN(false));
  config.SetOptionByName("extension_directory", duckdb::Value(dir.path("extensions")));
  duckdb::DuckDB database(nullptr, &config);
  duckdb::Connection connection(database);

  auto before = connection.Query("ATTACH '" + dir.path("probe") + "' AS p (TYPE moraine)");
  ASSERT_TRUE(before->HasError()) << "moraine must not be known before LOAD";

  MustQuery(connection, "LOAD '" MORAINE_LOADABLE_EXTENSION "'");
  MustQuery(connection, "LOAD '" DUCKLAKE_EXTENSION "'");
  MustQuery(connection, "ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") +
                            "' AS lake (DATA_PATH '" + dir.path("files") + "/')");
  MustQuery(connection, "CREATE TABLE lake.t (i INTEGER)");
  MustQuery(connection, "INSERT INTO lake.t VALUES (1), (2)");
  auto result = MustQuery(connection, "SELECT sum(i) FROM lake.t");
  EXPECT_EQ(result->GetValue(0, 0).ToString(), "3");
  // The extension's SQL functions came with it; a store in use is not migrated.
  const std::string migrate =
      "SELECT from_format, to_format FROM moraine_migrate('" + dir.path("lake.moraine") + "')";
  auto refused = connection.Query(migrate);
  ASSERT_TRUE(refused->HasError());
  EXPECT_NE(refused->GetError().find("already open"), std::string::npos) << refused->GetError();
  auto raise =
      MustQuery(connection, "SELECT * FROM moraine_raise_catalog_version('lake', dry_run => true)");
  EXPECT_EQ(raise->GetValue(0, 0).ToString(), "1.0");
  EXPECT_EQ(raise->GetValue(1, 0).ToString(), "1.1");
  MustQuery(connection, "DETACH lake");
  auto current = MustQuery(connection, migrate);
  // A store this build wrote is already at its format (commit::kStoreFormatVersion,
  // which this test sees only through the file it loads): nothing to migrate.
  EXPECT_EQ(current->GetValue(0, 0).ToString(), "4");
  EXPECT_EQ(current->GetValue(1, 0).ToString(), "4");
}

}  // namespace
}  // namespace moraine
