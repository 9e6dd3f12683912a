// DuckLake on moraine on etcd, end to end: ATTACH
// 'ducklake:moraine:etcd://...' on a real 3-member cluster, then CREATE,
// INSERT and SELECT, and a second session that attaches the same lake sees
// what the first committed.

#include <gtest/gtest.h>

#include "distributed/etcd_store_fixture.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

class EtcdDuckLakeTest : public EtcdStoreFixture {
 protected:
  std::string Attach() const {
    return "ATTACH 'ducklake:moraine:" + Location() + "' AS lake (DATA_PATH '" +
           files_.path("files") + "')";
  }
  TempDir files_;
};

TEST_F(EtcdDuckLakeTest, CreateInsertSelect) {
  {
    DuckLakeSession session;
    session.Run(Attach());
    session.Run("CREATE TABLE lake.orders (id INTEGER, item VARCHAR, qty INTEGER)");
    session.Run("INSERT INTO lake.orders VALUES (1, 'apple', 3), (2, 'pear', 5)");
    session.Run("INSERT INTO lake.orders VALUES (3, 'plum', 7)");
    EXPECT_EQ(session.Query("SELECT count(*), sum(qty) FROM lake.orders"), (Rows{{"3", "15"}}));
    session.Run("DELETE FROM lake.orders WHERE id = 2");
    EXPECT_EQ(session.Query("SELECT id, item FROM lake.orders ORDER BY id"),
              (Rows{{"1", "apple"}, {"3", "plum"}}));
  }
  // A new session, a new handle on the cluster: the lake is all there.
  DuckLakeSession again;
  again.Run(Attach());
  EXPECT_EQ(again.Query("SELECT id, item, qty FROM lake.orders ORDER BY id"),
            (Rows{{"1", "apple", "3"}, {"3", "plum", "7"}}));
  EXPECT_GE(again.Head(), 4);
}

}  // namespace
}  // namespace moraine::test
