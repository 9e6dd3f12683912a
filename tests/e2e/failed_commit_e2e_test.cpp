// A session whose COMMIT failed still closes its database and its store.
// DuckLake keeps the failed transaction, and through its metadata connection
// the whole DuckDB instance (ducklake_adapter/host.cpp, DetachLakes): without
// the host breaking that cycle, the instance outlived its session and the
// store stayed open read-write until the process exited.
#include <gtest/gtest.h>

#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"

namespace moraine::test {
namespace {

class FailedCommit : public MoraineLakeTest {};

TEST_F(FailedCommit, ClosesItsDatabaseAndStoreWithTheSession) {
  duckdb::weak_ptr<duckdb::DatabaseInstance> instance;
  {
    DuckLakeSession session;
    instance = session.host().database().instance;
    session.Run(AttachLake());
    session.Run("CREATE TABLE lake.t (i INTEGER)");
    session.Run("INSERT INTO lake.t VALUES (1), (5)");
    session.Run("BEGIN");
    session.Run("DELETE FROM lake.t WHERE i = 5");
    // Another connection's insert into the table commits first: DuckLake
    // refuses the delete's commit as a conflict.
    auto other = session.host().Connect();
    auto won = other->Query("INSERT INTO lake.t VALUES (8)");
    ASSERT_FALSE(won->HasError()) << won->GetError();
    EXPECT_NE(session.Error("COMMIT"), "");
  }
  EXPECT_TRUE(instance.expired()) << "the DuckDB instance outlived its session";
  // The store is free again: a new session of this process attaches it.
  DuckLakeSession again;
  again.Run(AttachLake());
  EXPECT_EQ(again.Query("SELECT i FROM lake.t ORDER BY i"), (Rows{{"1"}, {"5"}, {"8"}}));
}

}  // namespace
}  // namespace moraine::test
