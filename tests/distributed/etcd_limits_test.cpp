// The etcd cluster's limits, learned at ATTACH (etcd_limits.h), through
// DuckLake SQL on `ducklake:moraine:etcd://...`: each case starts its own
// 3-member cluster with the flags it needs.
//   - The probe learns --max-txn-ops and --max-request-bytes exactly, and
//     writes nothing (the cluster's revision does not move).
//   - A cluster below what moraine needs is refused at ATTACH, naming the flags.
//   - On small limits, a commit too large is refused before it is sent, with
//     the flag and the value it needs, and the lake still reads what it held.
//   - On the flags README suggests, a 1,000-column table takes 5,000 rows.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "store/etcd/etcd_limit_error.h"
#include "store/etcd/etcd_store.h"
#include "support/ducklake_session.h"
#include "support/etcd_cluster.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

// The flags README's etcd section suggests for production.
const std::vector<std::string> kProductionFlags = {
    "--max-txn-ops=8192", "--max-request-bytes=10485760", "--quota-backend-bytes=8589934592",
    "--auto-compaction-mode=periodic", "--auto-compaction-retention=1h"};

class EtcdLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto reason = EtcdUnavailableReason()) GTEST_SKIP() << *reason;
  }
  void Start(std::vector<std::string> flags) {
    cluster_ = std::make_unique<EtcdCluster>(EtcdCluster::Options{.flags = std::move(flags)});
  }
  std::string Location() const { return cluster_->Location("lake"); }
  std::string Attach() const {
    return "ATTACH 'ducklake:moraine:" + Location() + "' AS lake (DATA_PATH '" +
           files_.path("files") + "')";
  }
  std::unique_ptr<store::EtcdStore> OpenStore() {
    store::KvOptions options;
    options.location = Location();
    return store::EtcdStore::Open(options);
  }
  static std::string CreateWide(int columns) {
    std::string sql = "CREATE TABLE lake.wide (";
    for (int i = 0; i < columns; ++i) sql += (i ? ", c" : "c") + std::to_string(i) + " BIGINT";
    return sql + ")";
  }

  TempDir files_;
  std::unique_ptr<EtcdCluster> cluster_;
};

TEST_F(EtcdLimitsTest, TheProbeLearnsEtcdsDefaultsAndWritesNothing) {
  Start({});
  const int64_t before = cluster_->Revision();
  const auto start = std::chrono::steady_clock::now();
  auto store = OpenStore();
  const auto probed = std::chrono::steady_clock::now();
  store::EtcdStore::Open(store::KvOptions{.location = Location()});  // a writer again
  const auto writer = std::chrono::steady_clock::now();
  std::printf("[ figures  ] open with the limits probe: %lld ms (a second open: %lld ms)\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(probed - start).count()),
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(writer - probed).count()));
  EXPECT_EQ(store->limits().max_txn_ops, 128u);
  EXPECT_EQ(store->limits().max_request_bytes, 1572864u);
  EXPECT_EQ(cluster_->Revision(), before);
}

TEST_F(EtcdLimitsTest, TheProbeLearnsConfiguredLimits) {
  Start({"--max-txn-ops=300", "--max-request-bytes=400000"});
  auto store = OpenStore();
  EXPECT_EQ(store->limits().max_txn_ops, 300u);
  EXPECT_EQ(store->limits().max_request_bytes, 400000u);
}

TEST_F(EtcdLimitsTest, AClusterTooSmallForMoraineIsRefusedAtAttachNamingTheFlags) {
  Start({"--max-txn-ops=16", "--max-request-bytes=100000"});
  try {
    OpenStore();
    FAIL() << "a cluster of --max-txn-ops=16 must be refused";
  } catch (const store::EtcdLimitError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("--max-txn-ops is 16, moraine needs at least 32"), std::string::npos)
        << message;
    EXPECT_NE(message.find("--max-request-bytes is 100000"), std::string::npos) << message;
  }
  DuckLakeSession session;
  const std::string error = session.Error(Attach());
  EXPECT_NE(error.find("--max-txn-ops"), std::string::npos) << error;
}

TEST_F(EtcdLimitsTest, ACommitTooLargeIsRefusedNamingTheFlagAndNothingChanges) {
  Start({"--max-txn-ops=48", "--max-request-bytes=300000"});
  DuckLakeSession session;
  session.Run(Attach());
  session.Run("CREATE TABLE lake.t (id INTEGER, name VARCHAR)");
  session.Run("INSERT INTO lake.t VALUES (1, 'one'), (2, 'two')");
  const int64_t head = session.Head();

  // 60 columns: a key per column, more than 48 operations.
  std::string error = session.Error(CreateWide(60));
  EXPECT_NE(error.find("--max-txn-ops of at least"), std::string::npos) << error;
  EXPECT_EQ(error.find("etcdserver:"), std::string::npos) << error;  // never the raw gRPC text

  // One inlined row of 400 KB: one key, too many bytes.
  error = session.Error("INSERT INTO lake.t VALUES (3, repeat('x', 400000))");
  EXPECT_NE(error.find("--max-request-bytes of at least"), std::string::npos) << error;

  DuckLakeSession again;
  again.Run(Attach());
  EXPECT_EQ(again.Head(), head);
  EXPECT_EQ(again.Query("SELECT id, name FROM lake.t ORDER BY id"),
            (Rows{{"1", "one"}, {"2", "two"}}));
  EXPECT_EQ(again.Query("SELECT count(*) FROM (SHOW TABLES FROM lake)"), (Rows{{"1"}}));
  // A commit within the limits still lands.
  again.Run("INSERT INTO lake.t VALUES (3, 'three')");
  EXPECT_EQ(again.Query("SELECT count(*) FROM lake.t"), (Rows{{"3"}}));
}

TEST_F(EtcdLimitsTest, OnTheSuggestedFlagsAThousandColumnTableTakesFiveThousandRows) {
  Start(kProductionFlags);
  EXPECT_EQ(OpenStore()->limits().max_txn_ops, 8192u);
  EXPECT_EQ(OpenStore()->limits().max_request_bytes, 10485760u);
  {
    DuckLakeSession session;
    session.Run(Attach());
    session.Run(CreateWide(1000));
    std::string select = "INSERT INTO lake.wide SELECT ";
    for (int c = 0; c < 1000; ++c)
      select += (c ? ", i * 1000 + " : "i * 1000 + ") + std::to_string(c);
    session.Run(select + " FROM range(5000) r(i)");
  }
  DuckLakeSession again;
  again.Run(Attach());
  EXPECT_EQ(again.Query("SELECT count(*), sum(c0), sum(c999), min(c500), max(c500) FROM lake.wide"),
            (Rows{{"5000", "12497500000", "12502495000", "500", "4999500"}}));
  EXPECT_EQ(again.Query("SELECT count(*) FROM lake.wide WHERE c777 = 4242777"), (Rows{{"1"}}));
  EXPECT_EQ(
      again.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_table_column_stats"),
      (Rows{{"1000"}}));
  // Dropping it ends every column version (two keys each): within the flags too.
  again.Run("DROP TABLE lake.wide");
  EXPECT_EQ(again.Query("SELECT count(*) FROM (SHOW TABLES FROM lake)"), (Rows{{"0"}}));
}

}  // namespace
}  // namespace moraine::test
