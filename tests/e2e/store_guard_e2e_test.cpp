// What protects a moraine lake from outside: one writer process with readers
// beside it, and damaged values reported as errors rather than read or crashed on.
#include <gtest/gtest.h>

#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "support/run_process.h"

namespace moraine {
namespace {

const std::string kMoraine = MORAINE_EXECUTABLE;

class StoreGuard : public test::MoraineLakeTest {
 protected:
  test::ProcessResult MoraineSql(const std::string& sql) const {
    return test::RunCommand(kMoraine + " sql --csv -c \"" + sql + "\" 2>&1");
  }
};

TEST_F(StoreGuard, ReadersInOtherProcessesSeeTheWritersCommitsAndWritersAreRefused) {
  test::DuckLakeSession writer;
  writer.Run(AttachLake());
  writer.Run("CREATE TABLE lake.t (i INTEGER)");
  writer.Run("INSERT INTO lake.t VALUES (1), (2), (3)");

  auto reader = MoraineSql(AttachLake(", READ_ONLY") + "; SELECT count(*) AS n FROM lake.t");
  EXPECT_EQ(reader.exit_code, 0) << reader.output;
  EXPECT_NE(reader.output.find("n\n3\n"), std::string::npos) << reader.output;

  writer.Run("INSERT INTO lake.t VALUES (4)");
  reader = MoraineSql(AttachLake(", READ_ONLY") + "; SELECT count(*) AS n FROM lake.t");
  EXPECT_NE(reader.output.find("n\n4\n"), std::string::npos) << reader.output;

  auto second_writer = MoraineSql(AttachLake());
  EXPECT_EQ(second_writer.exit_code, 1) << second_writer.output;
  EXPECT_NE(second_writer.output.find("already open read-write"), std::string::npos)
      << second_writer.output;
  EXPECT_EQ(writer.Query("SELECT count(*) FROM lake.t"), (test::Rows{{"4"}}));
}

TEST_F(StoreGuard, ACorruptValueIsAClearErrorAndChangesNothing) {
  verify_store_at_teardown_ = false;  // damaged on purpose
  {
    test::DuckLakeSession session;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER, name VARCHAR)");
  }
  std::string damaged_key;
  {
    auto store = store::OpenKvStore({.location = Store()});
    auto view = store->GetSnapshot();
    auto it = view->Scan(store::PrefixRange(store::Subspace::kCurrent, store::Kind::kColumn));
    ASSERT_TRUE(it->Valid());
    damaged_key = std::string(it->key());
    store::WriteBatch damage;
    damage.Put(damaged_key, "not a moraine value");
    store->Write(damage);
  }
  {
    test::DuckLakeSession session;
    const std::string error = session.Error(AttachLake() + "; SELECT * FROM lake.t");
    EXPECT_NE(error.find("corruption"), std::string::npos) << error;
  }
  auto store = store::OpenKvStore({.location = Store(), .read_only = true});
  EXPECT_EQ(store::GetLatest(*store, damaged_key), "not a moraine value");
}

TEST_F(StoreGuard, TheCatalogVersionCannotBeRewrittenThroughTheCatalogTables) {
  test::DuckLakeSession session;
  session.Run(AttachLake());
  const std::string error = session.Error(
      "UPDATE __ducklake_metadata_lake.ducklake_metadata SET value = '9.9' WHERE key = 'version'");
  EXPECT_NE(error.find("reserved"), std::string::npos) << error;
  EXPECT_EQ(session.Query("SELECT value FROM __ducklake_metadata_lake.ducklake_metadata "
                          "WHERE key = 'version'"),
            (test::Rows{{"1.0"}}));
}

TEST_F(StoreGuard, InMemoryStoresServeALakeAndNamedOnesOutliveADetach) {
  test::DuckLakeSession session;
  const std::string files = dir_.path("files") + "/";
  session.Run("ATTACH 'ducklake:moraine:memory://' AS lake (DATA_PATH '" + files + "')");
  session.Run("CREATE TABLE lake.t (i INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (5)");
  EXPECT_EQ(session.Query("SELECT i FROM lake.t"), (test::Rows{{"5"}}));
  session.Run("DETACH lake");

  const std::string named =
      "ATTACH 'ducklake:moraine:memory://guard-test' AS lake (DATA_PATH '" + files + "named/')";
  session.Run(named);
  session.Run("CREATE TABLE lake.u (i INTEGER)");
  session.Run("INSERT INTO lake.u VALUES (6)");
  session.Run("DETACH lake");
  session.Run(named);
  EXPECT_EQ(session.Query("SELECT i FROM lake.u"), (test::Rows{{"6"}}));
}

}  // namespace
}  // namespace moraine
