// A new DuckLake on moraine attached without DATA_PATH keeps its data files
// beside the store, in `<store path>.files/`, exactly as DuckLake does beside
// a DuckDB-file catalog (DuckLake's general/default_path.test); everything
// else about the data path is DuckLake's own.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::Rows;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string DataPath(test::DuckLakeSession& session, const std::string& lake) {
  const Rows rows = session.Query("SELECT value FROM __ducklake_metadata_" + lake +
                                  ".ducklake_metadata WHERE key = 'data_path'");
  return rows.size() == 1 ? rows[0][0] : "";
}

TEST(DefaultDataPath, ANewLakeKeepsItsFilesBesideTheStoreAsBesideADuckDbFile) {
  test::TempDir dir;
  const std::string store = dir.path("lake.db");
  {
    test::DuckLakeSession session;
    session.Run("ATTACH 'ducklake:moraine:" + store + "' AS lake");
    session.Run("ATTACH 'ducklake:" + dir.path("stock.db") + "' AS stock");
    for (const std::string lake : {"lake", "stock"}) {
      session.Run("CREATE TABLE " + lake + ".t (i INTEGER)");
      session.Run("INSERT INTO " + lake + ".t VALUES (1), (2)");
      session.Run("CALL ducklake_flush_inlined_data('" + lake + "')");
    }
    // The same path DuckLake derives for the DuckDB file.
    EXPECT_EQ(DataPath(session, "lake"), store + ".files/");
    EXPECT_EQ(DataPath(session, "stock"), dir.path("stock.db") + ".files/");
    EXPECT_EQ(session.Query("SELECT count(*) FROM glob('" + store + ".files/main/t/*.parquet')"),
              (Rows{{"1"}}));
  }
  // Attached again without DATA_PATH, the lake reads the path it recorded.
  test::DuckLakeSession session;
  session.Run("ATTACH 'ducklake:moraine:" + store + "' AS lake");
  EXPECT_EQ(session.Query("SELECT sum(i) FROM lake.t"), (Rows{{"3"}}));
}

TEST(DefaultDataPath, AnExistingStoreKeepsTheDataPathItsLakeRecorded) {
  test::TempDir dir;
  const std::string store = dir.path("lake.moraine");
  const std::string files = dir.path("elsewhere") + "/";
  {
    test::DuckLakeSession session;
    session.Run("ATTACH 'ducklake:moraine:" + store + "' AS lake (DATA_PATH '" + files + "')");
    session.Run("CREATE TABLE lake.t AS SELECT 7 AS i");
  }
  test::DuckLakeSession session;
  session.Run("ATTACH 'ducklake:moraine:" + store + "' AS lake");
  EXPECT_EQ(DataPath(session, "lake"), files);
  EXPECT_EQ(session.Query("SELECT i FROM lake.t"), (Rows{{"7"}}));
  EXPECT_FALSE(std::filesystem::exists(store + ".files"));
}

// A location with nothing beside it: DuckLake's own error, naming DATA_PATH.
TEST(DefaultDataPath, AMemoryStoreWithoutDataPathIsRefusedNamingDataPath) {
  test::DuckLakeSession session;
  const std::string error = session.Error("ATTACH 'ducklake:moraine:memory://' AS lake");
  EXPECT_TRUE(Contains(error, "DATA_PATH")) << error;
}

}  // namespace
}  // namespace moraine
