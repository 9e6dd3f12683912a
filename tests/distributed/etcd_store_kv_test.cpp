// The KvStore contract (support/kv_store_contract.h) against a real 3-member
// etcd cluster, and what is particular to etcd: paging, binary key
// order, prefixes, commit tokens out of sight, the cluster's limits, and an
// unreachable cluster.

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>

#include "distributed/etcd_store_fixture.h"
#include "store/error.h"
#include "store/etcd/etcd_limit_error.h"
#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/kv_store_contract.h"
#include "support/run_process.h"

namespace moraine::store {
namespace {

using EtcdStoreKvTest = test::EtcdStoreFixture;
using test::KvStoreContract;
using test::ScanAll;

std::string K(Kind kind, std::initializer_list<uint64_t> components) {
  return Key::Current(kind, components).Encode();
}

// ---- The contract every KvStore keeps (support/kv_store_contract.h) ----

// The contract's cases share one cluster (not the fixture's: they are
// another suite), each on a fresh prefix.
std::string NewEtcdLocation() {
  static const auto cluster = std::make_unique<test::EtcdCluster>();
  static std::atomic<int> counter{0};
  return cluster->Location("contract-" + std::to_string(::getpid()) + "-" +
                           std::to_string(++counter));
}

const test::KvBackend kEtcd{.name = "Etcd",
                            .new_location = NewEtcdLocation,
                            .unavailable = test::EtcdUnavailableReason,
                            .single_writer = false};

INSTANTIATE_TEST_SUITE_P(Etcd, KvStoreContract, ::testing::Values(&kEtcd), test::KvBackendName);

// ---- What is particular to etcd ----

TEST_F(EtcdStoreKvTest, OpenKvStorePicksEtcdByScheme) {
  auto store = Open();
  EXPECT_NE(dynamic_cast<EtcdStore*>(store.get()), nullptr);
  EXPECT_EQ(store->location(), Location());
}

TEST_F(EtcdStoreKvTest, ScanPagesAgreeOnOneRevision) {
  EtcdStoreOptions small_pages;
  small_pages.scan_page_size = 3;
  auto store = OpenEtcd(small_pages);
  WriteBatch batch;
  for (uint64_t i = 0; i < 50; ++i) batch.Put(K(Kind::kTable, {i}), "v" + std::to_string(i));
  store->Write(batch);

  auto snapshot = store->GetSnapshot();
  auto it = snapshot->Scan(PrefixRange(Subspace::kCurrent, Kind::kTable));
  uint64_t seen = 0;
  for (; it->Valid(); it->Next(), ++seen) {
    EXPECT_EQ(Key::Decode(it->key()).component(0), seen);
    EXPECT_EQ(it->value(), "v" + std::to_string(seen));
    if (seen == 10) {
      // Between pages, a commit adds, changes and removes keys ahead of the
      // cursor: the scan still reads the snapshot's revision.
      WriteBatch meanwhile;
      meanwhile.Put(K(Kind::kTable, {30}), "changed");
      meanwhile.Delete(K(Kind::kTable, {40}));
      meanwhile.Put(K(Kind::kTable, {1000}), "added");
      store->Write(meanwhile);
    }
  }
  EXPECT_EQ(seen, 50u);
  EXPECT_EQ(ScanAll(*store->GetSnapshot(), PrefixRange(Subspace::kCurrent, Kind::kTable)).size(),
            50u);
}

TEST_F(EtcdStoreKvTest, BinaryKeysKeepByteOrder) {
  auto store = Open();
  const std::vector<std::string> keys = {std::string("\x00", 1),
                                         std::string("\x00\x00", 2),
                                         std::string("\x01\xff", 2),
                                         "\x7f",
                                         "\x80",
                                         std::string("\xff\x00", 2),
                                         "\xff\xff"};
  WriteBatch batch;
  for (const auto& key : keys) batch.Put(key, key);
  store->Write(batch);
  std::vector<std::string> scanned;
  for (auto it = store->GetSnapshot()->Scan(KeyRange{"", ""}); it->Valid(); it->Next()) {
    EXPECT_EQ(it->key(), it->value());
    scanned.emplace_back(it->key());
  }
  EXPECT_EQ(scanned, keys);  // `keys` is in bytewise order
  auto bounded = ScanAll(*store->GetSnapshot(), KeyRange{"\x01", "\xff"});
  EXPECT_EQ(bounded.size(), 3u);
  EXPECT_TRUE(ScanAll(*store->GetSnapshot(), KeyRange{"\x80", "\x80"}).empty());
  EXPECT_TRUE(ScanAll(*store->GetSnapshot(), KeyRange{"\x90", "\x80"}).empty());
}

// Commit tokens live beside the lake's keys: an unbounded scan after many
// commits returns the lake's keys alone, and closing a handle removes its token.
TEST_F(EtcdStoreKvTest, CommitTokensStayOutOfSight) {
  auto store = Open();
  for (int i = 0; i < 5; ++i) {
    WriteBatch batch;
    batch.Put("key" + std::to_string(i), "v");
    store->Write(batch);
  }
  EXPECT_EQ(ScanAll(*store->GetSnapshot(), KeyRange{"", ""}).size(), 5u);

  // What etcd itself holds under the lake's prefix, through etcdctl.
  const std::string tokens = "etcdctl --endpoints=" + cluster().Endpoints() +
                             " get --prefix --keys-only " + prefix_ + "/t/ 2>&1";
  EXPECT_NE(test::RunCommand(tokens).output.find(prefix_ + "/t/"), std::string::npos);
  store.reset();
  const auto left = test::RunCommand(tokens);
  EXPECT_EQ(left.exit_code, 0) << left.output;
  EXPECT_EQ(left.output.find(prefix_ + "/t/"), std::string::npos) << left.output;
}

TEST_F(EtcdStoreKvTest, LakesUnderDifferentPrefixesAreIndependent) {
  KvOptions options;
  options.location = Location();
  auto a = OpenKvStore(options);
  options.location = Location() + "-b";  // a prefix that extends the first one
  auto b = OpenKvStore(options);
  WriteBatch batch;
  batch.Put("k", "in a");
  a->Write(batch);
  EXPECT_EQ(GetLatest(*b, "k"), std::nullopt);
  EXPECT_TRUE(ScanAll(*b->GetSnapshot(), KeyRange{"", ""}).empty());
}

TEST_F(EtcdStoreKvTest, MalformedLocationsAreInvalidArgument) {
  for (const std::string location :
       {"etcd://", "etcd://127.0.0.1:1", "etcd://127.0.0.1:1/", "etcd://127.0.0.1/lake",
        "etcd://127.0.0.1:99999/lake", "etcd://127.0.0.1:1/a/b", "etcd://:1/lake",
        "etcds://127.0.0.1:1/", "etcd://127.0.0.1:1/a/s/", "etcd://127.0.0.1:1//s/b",
        "etcd://127.0.0.1:1/a/s/b/s/c", "etcd://127.0.0.1:1/a/s/b c"}) {
    KvOptions options;
    options.location = location;
    EXPECT_THROW(OpenKvStore(options), InvalidArgumentError) << location;
  }
}

// etcds:// against a member that speaks no TLS is refused at once, saying so,
// rather than retried until the operation deadline.
TEST_F(EtcdStoreKvTest, TlsAgainstAPlainClusterIsABadArgument) {
  std::string tls = Location();
  tls.replace(0, std::string("etcd://").size(), "etcds://");
  KvOptions options;
  options.location = tls;
  options.etcd_security = EtcdSecurity{};
  try {
    OpenKvStore(options);
    FAIL() << "etcds:// opened a plain cluster";
  } catch (const InvalidArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("does not speak TLS"), std::string::npos)
        << error.what();
  }
}

TEST_F(EtcdStoreKvTest, UnreachableClusterIsIoErrorWithinTheTimeout) {
  // Nothing listens on port 1 of loopback: every RPC is refused at once.
  KvOptions options;
  options.location = "etcd://127.0.0.1:1/lake";
  EtcdStoreOptions quick;
  quick.rpc_timeout = std::chrono::milliseconds(200);
  quick.operation_timeout = std::chrono::milliseconds(1500);
  const auto start = std::chrono::steady_clock::now();
  try {
    EtcdStore::Open(options, quick);
    FAIL() << "opened a store on a cluster that is not there";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("did not answer"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(options.location), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// etcd's default --max-txn-ops is 128; a commit uses one for its token.
TEST_F(EtcdStoreKvTest, CommitAtTheOperationLimitCommits) {
  auto store = Open();
  WriteBatch batch;
  for (uint64_t i = 0; i < 126; ++i) batch.Put(K(Kind::kColumn, {1, i}), "c");
  batch.Put(K(Kind::kColumn, {1, 0}),
            "twice");  // collapsed: still 126 keys, with the token and the marker 128 operations
  store->Write(batch);
  EXPECT_EQ(GetLatest(*store, K(Kind::kColumn, {1, 0})), "twice");
}

TEST_F(EtcdStoreKvTest, CommitOverTheOperationLimitNamesTheFlag) {
  auto store = Open();
  const std::string head = Key::Current(Kind::kHead, {}).Encode();
  WriteBatch batch;
  for (uint64_t i = 0; i < 200; ++i) batch.Put(K(Kind::kColumn, {1, i}), "c");
  try {
    store->WriteIfHeadUnchanged(head, std::nullopt, batch);
    FAIL() << "a 200-key commit passed a cluster with etcd's default limits";
  } catch (const EtcdLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("--max-txn-ops"), std::string::npos) << error.what();
  }
  EXPECT_EQ(GetLatest(*store, K(Kind::kColumn, {1, 0})), std::nullopt);  // nothing split off
  EXPECT_EQ(GetLatest(*store, head), std::nullopt);
}

TEST_F(EtcdStoreKvTest, CommitOverTheRequestSizeLimitNamesTheFlag) {
  auto store = Open();
  for (size_t size : {size_t{1700} * 1024, size_t{3} * 1024 * 1024}) {
    WriteBatch batch;
    batch.Put("big", std::string(size, 'x'));
    try {
      store->Write(batch);
      FAIL() << "a commit of " << size << " bytes passed etcd's default 1.5 MiB limit";
    } catch (const EtcdLimitError& error) {
      EXPECT_NE(std::string(error.what()).find("--max-request-bytes"), std::string::npos)
          << error.what();
    }
  }
  EXPECT_EQ(GetLatest(*store, "big"), std::nullopt);
  WriteBatch fits;
  fits.Put("big", std::string(1024 * 1024, 'x'));
  store->Write(fits);
  EXPECT_EQ(GetLatest(*store, "big")->size(), 1024u * 1024);
}

// A member down is no outage: the store moves to the next endpoint.
TEST_F(EtcdStoreKvTest, OneMemberDownIsNoOutage) {
  auto store = OpenEtcd(EtcdStoreOptions{});
  const int member = static_cast<int>(store->current_member());
  cluster().Kill(member);
  WriteBatch batch;
  batch.Put("k", "v");
  store->Write(batch);
  EXPECT_EQ(GetLatest(*store, "k"), "v");
  EXPECT_NE(static_cast<int>(store->current_member()), member);
  cluster().Restart(member);
  ASSERT_TRUE(cluster().WaitHealthy(std::chrono::seconds(20)));
}

// A handle goes to the leader at open, wherever it stands in the location:
// a commit sent to a follower is forwarded to the leader and answered only
// once the follower has applied it.
TEST_F(EtcdStoreKvTest, AHandleGoesToTheLeaderAtOpen) {
  const int leader = cluster().Leader();
  ASSERT_GE(leader, 0);
  for (int first = 0; first < cluster().size(); ++first) {
    // The endpoints from `first` on, wrapping around.
    std::string endpoints;
    for (int i = 0; i < cluster().size(); ++i) {
      endpoints += (i ? "," : "") + cluster().Endpoint((first + i) % cluster().size());
    }
    KvOptions options;
    options.location = "etcd://" + endpoints + "/" + prefix_;
    const auto store = EtcdStore::Open(options, EtcdStoreOptions{});
    const int expected = (leader - first + cluster().size()) % cluster().size();
    EXPECT_EQ(static_cast<int>(store->current_member()), expected) << options.location;
  }
}

}  // namespace
}  // namespace moraine::store
