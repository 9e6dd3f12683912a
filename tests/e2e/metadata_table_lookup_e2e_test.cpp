// DuckLake asks whether an inlined table exists by querying it and taking the
// error as "absent". On a moraine catalog that miss must cost a scan of table
// names, not an entry built for every table of the catalog (DuckDB's default
// way to rank a "did you mean"), which on a lake of hundreds of inlined
// tables made a session's first query take 200 ms.
#include <gtest/gtest.h>

#include <string>

#include "duckdb/catalog/catalog.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb_shim/moraine_schema_entry.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

size_t BuiltEntries(test::DuckLakeSession& session, const std::string& catalog) {
  size_t count = 0;
  auto& context = *session.connection().context;
  context.RunFunctionInTransaction([&] {
    auto& schema = duckdb::Catalog::GetSchema(context, catalog, "main");
    count = schema.Cast<duckdb_shim::MoraineSchemaEntry>().BuiltEntryCount();
  });
  return count;
}

TEST(MetadataTableLookup, AMissingTableIsRankedByNameWithoutBuildingEveryTableEntry) {
  test::TempDir dir;
  const std::string store = dir.path("lake.moraine");
  {
    test::DuckLakeSession session;
    session.Run("ATTACH 'ducklake:moraine:" + store + "' AS lake (DATA_PATH '" + dir.path("files") +
                "/')");
    for (int i = 0; i < 12; i++) {
      const std::string table = "lake.t" + std::to_string(i);
      session.Run("CREATE TABLE " + table + " (a INTEGER)");
      session.Run("INSERT INTO " + table + " VALUES (" + std::to_string(i) + ")");
    }
  }
  test::DuckLakeSession session;
  session.Run("ATTACH 'moraine:" + store + "' AS m");
  const size_t before = BuiltEntries(session, "m");
  const std::string error =
      session.Error("SELECT NULL FROM m.main.ducklake_inlined_delete_7 LIMIT 1");
  EXPECT_NE(error.find("ducklake_inlined_delete_7 does not exist"), std::string::npos) << error;
  // The nearest name is still offered, as DuckDB's own ranking would.
  EXPECT_NE(error.find("Did you mean \"ducklake_inlined_data_"), std::string::npos) << error;
  EXPECT_EQ(BuiltEntries(session, "m"), before);
  // A table that exists is still served.
  EXPECT_EQ(session.Query("SELECT count(*) FROM m.main.ducklake_table WHERE end_snapshot IS NULL"),
            (test::Rows{{"12"}}));
}

}  // namespace
}  // namespace moraine
