// Snapshot reads are serializable (served by the member itself, see
// store/etcd/etcd_snapshot.h): exact at their revision on every member, and a
// member that has not applied the revision yet makes the read go
// linearizable instead of failing or answering from an older state.
#include <gtest/gtest.h>

#include "distributed/etcd_store_fixture.h"
#include "store/error.h"
#include "store/etcd/etcd_client.h"
#include "store/etcd/etcd_keyspace.h"
#include "store/etcd/etcd_location.h"
#include "store/etcd/etcd_snapshot.h"
#include "store/key.h"

namespace moraine::store {
namespace {

using EtcdSerializableReadTest = test::EtcdStoreFixture;

etcdserverpb::RangeRequest SerializableGet(const std::string& key, int64_t revision) {
  etcdserverpb::RangeRequest request;
  request.set_key(key);
  request.set_revision(revision);
  request.set_serializable(true);
  return request;
}

// A follower paused while the leader commits lags behind the revision; a
// serializable read there at that revision, right after it resumes, still
// returns exactly what was committed at it (whether the follower has caught
// up or the read fell back to the read index).
TEST_F(EtcdSerializableReadTest, ALaggingMemberAnswersExactlyAtTheRevision) {
  auto store = Open();
  const int leader = cluster().Leader();
  ASSERT_GE(leader, 0);
  const int follower = (leader + 1) % cluster().size();
  const EtcdKeyspace keyspace(prefix_);
  const std::string key = Key::Current(Kind::kTable, {1}).Encode();
  // The client starts on the first endpoint: make that the follower.
  auto location = EtcdLocation::Parse(cluster().Location(prefix_));
  std::swap(location.endpoints[0], location.endpoints[follower]);
  EtcdClient client(location, cluster().Location(prefix_), EtcdStoreOptions{});
  for (int round = 0; round < 5; ++round) {
    cluster().Pause(follower);
    WriteBatch batch;
    batch.Put(key, "v" + std::to_string(round));
    store->Write(batch);
    const auto snapshot = store->GetSnapshot();
    const int64_t revision = static_cast<EtcdSnapshot&>(*snapshot).revision();
    cluster().Resume(follower);
    const auto response = client.Range(SerializableGet(keyspace.Data(key), revision));
    ASSERT_EQ(response.kvs_size(), 1);
    EXPECT_EQ(response.kvs(0).value(), "v" + std::to_string(round));
    EXPECT_EQ(response.kvs(0).mod_revision(), revision);
  }
}

// A revision no member has is refused with a clear IoError, not retried
// forever and not answered from the present.
TEST_F(EtcdSerializableReadTest, ARevisionTheClusterDoesNotHaveIsIoError) {
  auto store = Open();
  WriteBatch batch;
  batch.Put(Key::Current(Kind::kTable, {1}).Encode(), "v");
  store->Write(batch);
  const auto snapshot = store->GetSnapshot();
  const int64_t future = static_cast<EtcdSnapshot&>(*snapshot).revision() + 1000;
  EtcdClient client(EtcdLocation::Parse(cluster().Location(prefix_)), cluster().Location(prefix_),
                    EtcdStoreOptions{});
  try {
    client.Range(SerializableGet(EtcdKeyspace(prefix_).Data("x"), future));
    FAIL() << "a read at a future revision succeeded";
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("has no revision"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace moraine::store
