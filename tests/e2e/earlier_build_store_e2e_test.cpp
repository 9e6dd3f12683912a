// A store written by an earlier moraine build reads in this one. Builds up to
// 70e312d linked Debian 12's RocksDB 7.8.3, which compressed table files
// with snappy by default; this build links RocksDB 7.9.2 from source, with
// snappy built in for exactly that. The fixture (tests/e2e/data/
// store_rocksdb_7_8_snappy) was written through DuckLake by that earlier
// extension in the stock DuckDB 1.5.5: a table of 300 one-row inlined INSERTs,
// flushed to one snappy-compressed table file at close. Its store format is
// 2 (an inlined row per record): it reads after `moraine migrate`, which
// batches the rows (store format 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "commit/lake/store_records.h"
#include "commit/migrations/store_format.h"
#include "support/ducklake_session.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

const std::filesystem::path kFixture = MORAINE_E2E_DATA "/store_rocksdb_7_8_snappy";

TEST(StoreOfAnEarlierBuild, TheFixtureHoldsASnappyCompressedTableFile) {
  bool snappy = false;
  for (const auto& entry : std::filesystem::directory_iterator(kFixture)) {
    if (entry.path().extension() != ".sst") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The table file's properties block names its compression.
    snappy = snappy || bytes.find("Snappy") != std::string::npos;
  }
  EXPECT_TRUE(snappy) << "the fixture no longer exercises snappy";
}

TEST(StoreOfAnEarlierBuild, ReadsThroughDuckLakeAndVerifiesClean) {
  test::TempDir dir;
  const std::string location = dir.path("lake.moraine");
  std::filesystem::copy(kFixture, location);
  {
    test::DuckLakeSession refused;
    const std::string error =
        refused.Error("ATTACH 'ducklake:moraine:" + location + "' AS lake (DATA_PATH '" +
                      dir.path("files") + "/', OVERRIDE_DATA_PATH true)");
    EXPECT_NE(error.find("moraine migrate " + location), std::string::npos) << error;
  }
  const auto report = commit::MigrateStore(location);
  EXPECT_EQ(report.from, 2u);
  EXPECT_EQ(report.to, commit::kStoreFormatVersion);
  // Its inlined batches are summarized too: verify checks every summary
  // against its batch, and the queries below read them.
  EXPECT_TRUE(report.summarized);
  test::ExpectStoreVerifies(location);
  test::DuckLakeSession session;
  // The lake was made with DATA_PATH '/data/files/'; its rows are all inlined.
  session.Run("ATTACH 'ducklake:moraine:" + location + "' AS lake (DATA_PATH '" +
              dir.path("files") + "/', OVERRIDE_DATA_PATH true)");
  EXPECT_EQ(session.Query("SELECT count(*), sum(id), count(DISTINCT name) FROM lake.t"),
            (test::Rows{{"300", "44850", "300"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.snapshots()"), (test::Rows{{"302"}}));
  EXPECT_EQ(session.Query("SELECT count(*), sum(id) FROM lake.t WHERE id BETWEEN 10 AND 19"),
            (test::Rows{{"10", "145"}}));
  // It takes writes as well: the next commit lands on the old files.
  session.Run("INSERT INTO lake.t VALUES (300, 'after')");
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (test::Rows{{"301"}}));
}

}  // namespace
}  // namespace moraine
