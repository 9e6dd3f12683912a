// DuckLake on moraine on etcd, end to end: ATTACH
// 'ducklake:moraine:etcd://...' on a real 3-member cluster, then CREATE,
// INSERT and SELECT, and a second session that attaches the same lake sees
// what the first committed.

#include <gtest/gtest.h>

#include <cstdio>

#include "commit/lake/catalog_caching_store.h"
#include "commit/lake/store_registry.h"
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

// Round trips to the cluster are what a commit on etcd costs: count them for
// one-row INSERTs into a table that already holds rows.
TEST_F(EtcdDuckLakeTest, AOneRowInsertCommitIsFewRoundTrips) {
  DuckLakeSession session;
  session.Run(Attach());
  session.Run("CREATE TABLE lake.t (id INTEGER, v VARCHAR)");
  for (int i = 0; i < 3; ++i)
    session.Run("INSERT INTO lake.t VALUES (" + std::to_string(i) + ", 'x')");
  // The session's handle: the registry shares one per location.
  auto shared = commit::StoreRegistry::Instance().Open(Location(), /*read_only=*/false);
  auto& etcd = dynamic_cast<store::EtcdStore&>(shared->wrapped());
  const auto before = etcd.rpc_counts();
  const auto cache_before = etcd.read_cache_counts();
  constexpr int kCommits = 10;
  for (int i = 0; i < kCommits; ++i)
    session.Run("INSERT INTO lake.t VALUES (" + std::to_string(100 + i) + ", 'y')");
  const auto after = etcd.rpc_counts();
  const auto cache_after = etcd.read_cache_counts();
  const double ranges = double(after.ranges - before.ranges) / kCommits;
  const double txns = double(after.txns - before.txns) / kCommits;
  const uint64_t hits = cache_after.hits - cache_before.hits;
  const uint64_t misses = cache_after.misses - cache_before.misses;
  std::printf(
      "per one-row INSERT commit: %.1f Range RPCs, %.1f Txn RPCs; read cache: %llu hits, "
      "%llu misses\n",
      ranges, txns, static_cast<unsigned long long>(hits), static_cast<unsigned long long>(misses));
  EXPECT_EQ(txns, 1.0);
  // One linearizable read starts each snapshot; every other Range is a read
  // the cache could not answer. How many it cannot answer depends on how far
  // its watch lags on a loaded machine (run alone: none), so the bound counts
  // them instead of guessing a time: no Range goes out that the cache did
  // not first decline, and the cache answers most reads.
  EXPECT_LE(after.ranges - before.ranges, kCommits + misses);
  EXPECT_GT(hits, misses);
}

// Nested catalogs made before they moved under the lake's prefix live at
// <prefix>.schemas.<name>; they are still found there, and new ones go under
// <prefix>/s/<name>.
TEST_F(EtcdDuckLakeTest, ANestedCatalogAtTheEarlierLocationKeepsBeingServed) {
  auto attach = [&](const std::string& location, const std::string& schema) {
    return "ATTACH 'ducklake:moraine:" + location + "' AS " + schema + " (DATA_PATH '" +
           files_.path(schema) + "', METADATA_SCHEMA '" + schema + "')";
  };
  {
    DuckLakeSession session;
    session.Run(attach(Location(), "first"));
    session.Run("CREATE TABLE first.t (id INTEGER)");
    // What an earlier moraine made for schema 'old': a store of its own at
    // the earlier location.
    session.Run(attach(Location() + ".schemas.old", "old"));
    session.Run("CREATE TABLE old.t (v VARCHAR)");
    session.Run("INSERT INTO old.t VALUES ('kept')");
  }
  DuckLakeSession session;
  session.Run(attach(Location(), "first"));
  session.Run("DETACH first");
  session.Run(attach(Location(), "old"));
  EXPECT_EQ(session.Query("SELECT v FROM old.t"), (Rows{{"kept"}}));
  session.Run(attach(Location(), "fresh"));
  session.Run("CREATE TABLE fresh.t (id INTEGER)");
  EXPECT_NE(cluster().EtcdCtl("get --prefix --keys-only " + prefix_ + "/s/fresh/"), "");
}

}  // namespace
}  // namespace moraine::test
