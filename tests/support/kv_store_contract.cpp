// The cases of the KvStore contract suite (kv_store_contract.h).
#include "support/kv_store_contract.h"

#include <map>

#include "store/error.h"
#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::test {
namespace {

using namespace store;  // NOLINT: the store's vocabulary throughout

std::string K(Kind kind, std::initializer_list<uint64_t> components) {
  return Key::Current(kind, components).Encode();
}

TEST_P(KvStoreContract, PutGetDelete) {
  auto store = Open();
  WriteBatch batch;
  batch.Put(K(Kind::kTable, {1}), "one");
  batch.Put(K(Kind::kTable, {2}), "two");
  store->Write(batch);
  EXPECT_EQ(GetLatest(*store, K(Kind::kTable, {1})), "one");
  EXPECT_EQ(GetLatest(*store, K(Kind::kTable, {3})), std::nullopt);

  WriteBatch removal;
  removal.Delete(K(Kind::kTable, {1}));
  removal.Delete(K(Kind::kTable, {9}));  // absent: deleting it is no error
  store->Write(removal);
  EXPECT_EQ(GetLatest(*store, K(Kind::kTable, {1})), std::nullopt);
  EXPECT_EQ(GetLatest(*store, K(Kind::kTable, {2})), "two");
}

TEST_P(KvStoreContract, ScanReturnsExactlyTheRangeInOrder) {
  auto store = Open();
  WriteBatch batch;
  for (uint64_t table : {1ull, 2ull, 3ull}) {
    for (uint64_t column : {uint64_t{0}, uint64_t{1}, uint64_t{256}, UINT64_MAX}) {
      batch.Put(K(Kind::kColumn, {table, column}), std::to_string(table * 1000 + column % 1000));
    }
    batch.Put(K(Kind::kTable, {table}), "t");
    batch.Put(Key::History(Kind::kColumn, {table, 0}, 5).Encode(), "old");
  }
  store->Write(batch);

  auto snapshot = store->GetSnapshot();
  auto columns = ScanAll(*snapshot, TableRange(Subspace::kCurrent, Kind::kColumn, 2));
  ASSERT_EQ(columns.size(), 4u);
  for (const auto& [key, value] : columns) {
    EXPECT_EQ(Key::Decode(key).component(0), 2u);
    EXPECT_EQ(Key::Decode(key).subspace(), Subspace::kCurrent);
  }
  EXPECT_EQ(ScanAll(*snapshot, SubspaceRange(Subspace::kCurrent)).size(), 15u);
  EXPECT_EQ(ScanAll(*snapshot, SubspaceRange(Subspace::kHistory)).size(), 3u);
  EXPECT_TRUE(ScanAll(*snapshot, SubspaceRange(Subspace::kSnapshot)).empty());
}

TEST_P(KvStoreContract, LastKeyInIsTheGreatestKeyOfTheRangeAtTheSnapshot) {
  auto store = Open();
  WriteBatch batch;
  for (uint64_t table : {1ull, 2ull, 4ull}) {
    for (uint64_t column : {uint64_t{0}, uint64_t{7}, uint64_t{300}}) {
      batch.Put(K(Kind::kColumn, {table, column}), "c");
    }
    batch.Put(Key::History(Kind::kColumn, {table, 900}, 5).Encode(), "ended");
  }
  store->Write(batch);
  auto snapshot = store->GetSnapshot();
  const auto last_column = [&](const store::KvSnapshot& view, Subspace subspace, uint64_t table) {
    const auto key = view.LastKeyIn(TableRange(subspace, Kind::kColumn, table));
    return key ? std::optional<uint64_t>(Key::Decode(*key).component(1)) : std::nullopt;
  };
  EXPECT_EQ(last_column(*snapshot, Subspace::kCurrent, 2), 300u);
  EXPECT_EQ(last_column(*snapshot, Subspace::kHistory, 2), 900u);
  EXPECT_EQ(last_column(*snapshot, Subspace::kCurrent, 3), std::nullopt);  // between two tables
  EXPECT_EQ(last_column(*snapshot, Subspace::kCurrent, 9), std::nullopt);  // past the last
  // The end is exclusive; an empty or inverted range holds nothing.
  const std::string at_300 = K(Kind::kColumn, {2, 300});
  EXPECT_EQ(snapshot->LastKeyIn(KeyRange{K(Kind::kColumn, {2, 0}), at_300}),
            K(Kind::kColumn, {2, 7}));
  EXPECT_EQ(snapshot->LastKeyIn(KeyRange{at_300, at_300}), std::nullopt);
  EXPECT_EQ(snapshot->LastKeyIn(KeyRange{at_300, K(Kind::kColumn, {1, 0})}), std::nullopt);
  EXPECT_EQ(snapshot->LastKeyIn(KeyRange{"", ""}),
            Key::History(Kind::kColumn, {4, 900}, 5).Encode());
  // Later writes stay out of the snapshot's answer.
  WriteBatch later;
  later.Put(K(Kind::kColumn, {2, 301}), "c");
  later.Delete(K(Kind::kColumn, {4, 300}));
  store->Write(later);
  EXPECT_EQ(last_column(*snapshot, Subspace::kCurrent, 2), 300u);
  EXPECT_EQ(last_column(*snapshot, Subspace::kCurrent, 4), 300u);
  EXPECT_EQ(last_column(*store->GetSnapshot(), Subspace::kCurrent, 2), 301u);
  EXPECT_EQ(last_column(*store->GetSnapshot(), Subspace::kCurrent, 4), 7u);
}

TEST_P(KvStoreContract, BatchIsAtomicAndOrdered) {
  auto store = Open();
  WriteBatch batch;
  batch.Put(K(Kind::kSchema, {1}), "first");
  batch.Delete(K(Kind::kSchema, {1}));
  batch.Put(K(Kind::kSchema, {2}), "a");
  batch.Put(K(Kind::kSchema, {2}), "b");  // later operations win
  store->Write(batch);
  EXPECT_EQ(GetLatest(*store, K(Kind::kSchema, {1})), std::nullopt);
  EXPECT_EQ(GetLatest(*store, K(Kind::kSchema, {2})), "b");
}

TEST_P(KvStoreContract, SnapshotDoesNotSeeLaterWrites) {
  auto store = Open();
  WriteBatch first;
  first.Put(K(Kind::kTable, {1}), "v1");
  store->Write(first);

  auto before = store->GetSnapshot();
  WriteBatch second;
  second.Put(K(Kind::kTable, {1}), "v2");
  second.Put(K(Kind::kTable, {2}), "new");
  store->Write(second);

  EXPECT_EQ(before->Get(K(Kind::kTable, {1})), "v1");
  EXPECT_EQ(before->Get(K(Kind::kTable, {2})), std::nullopt);
  EXPECT_EQ(ScanAll(*before, PrefixRange(Subspace::kCurrent, Kind::kTable)).size(), 1u);
  auto after = store->GetSnapshot();
  EXPECT_EQ(after->Get(K(Kind::kTable, {1})), "v2");
  EXPECT_EQ(ScanAll(*after, PrefixRange(Subspace::kCurrent, Kind::kTable)).size(), 2u);
}

TEST_P(KvStoreContract, ConditionalWriteOnHead) {
  auto store = Open();
  const std::string head = Key::Current(Kind::kHead, {}).Encode();
  WriteBatch genesis;
  genesis.Put(head, "h1");
  genesis.Put(K(Kind::kSnapshot, {1}), "s1");
  EXPECT_TRUE(store->WriteIfHeadUnchanged(head, std::nullopt, genesis));
  // A second genesis (expects no head) must lose.
  WriteBatch rival;
  rival.Put(head, "rival");
  rival.Put(K(Kind::kSnapshot, {99}), "rival");
  EXPECT_FALSE(store->WriteIfHeadUnchanged(head, std::nullopt, rival));
  EXPECT_EQ(GetLatest(*store, K(Kind::kSnapshot, {99})), std::nullopt);

  WriteBatch next;
  next.Put(head, "h2");
  next.Put(K(Kind::kSnapshot, {2}), "s2");
  EXPECT_FALSE(store->WriteIfHeadUnchanged(head, std::string("stale"), next));
  EXPECT_EQ(GetLatest(*store, K(Kind::kSnapshot, {2})), std::nullopt);
  EXPECT_TRUE(store->WriteIfHeadUnchanged(head, std::string("h1"), next));
  EXPECT_EQ(GetLatest(*store, head), "h2");
  EXPECT_EQ(GetLatest(*store, K(Kind::kSnapshot, {2})), "s2");

  // A head that was deleted counts as absent again.
  WriteBatch drop;
  drop.Delete(head);
  EXPECT_TRUE(store->WriteIfHeadUnchanged(head, std::string("h2"), drop));
  WriteBatch again;
  again.Put(head, "h3");
  EXPECT_TRUE(store->WriteIfHeadUnchanged(head, std::nullopt, again));
  EXPECT_EQ(GetLatest(*store, head), "h3");
}

TEST_P(KvStoreContract, ReopenPersists) {
  {
    auto store = Open();
    v1::TableRecord table;
    table.set_table_id(7);
    table.set_table_name("orders");
    table.set_next_column_id(3);
    WriteBatch batch;
    batch.Put(K(Kind::kTable, {7}), FrameValue(Kind::kTable, table));
    store->Write(batch);
  }
  auto store = Open();
  auto value = GetLatest(*store, K(Kind::kTable, {7}));
  ASSERT_TRUE(value.has_value());
  v1::TableRecord table;
  UnframeValue(Kind::kTable, *value, &table);
  EXPECT_EQ(table.table_name(), "orders");
  EXPECT_EQ(table.next_column_id(), 3u);
}

TEST_P(KvStoreContract, SecondReadWriteHandleIsLockedOutOrSharesTheStore) {
  auto store = Open();
  // Contending commits take turns on both engines (the native manager skips
  // DuckLake's backoff between lost races only where they do): one writing
  // process on RocksDB, the commit queue of a writable etcd handle.
  EXPECT_TRUE(store->ContendingCommitsTakeTurns());
  if (GetParam()->single_writer) {
    try {
      Open();
      FAIL() << "second read-write open succeeded";
    } catch (const StoreLockedError& error) {
      EXPECT_NE(std::string(error.what()).find(location_), std::string::npos) << error.what();
    }
    store.reset();
    EXPECT_NO_THROW(Open());  // the lock is released on close
    return;
  }
  auto other = Open();
  WriteBatch batch;
  batch.Put(K(Kind::kTable, {1}), "from the first");
  store->Write(batch);
  EXPECT_EQ(GetLatest(*other, K(Kind::kTable, {1})), "from the first");
}

TEST_P(KvStoreContract, ReadOnlyBesideWriterSeesCommittedDataAndRefusesWrites) {
  auto writer = Open();
  WriteBatch batch;
  batch.Put(K(Kind::kTable, {1}), "committed");
  writer->Write(batch);

  auto reader = Open(/*read_only=*/true);
  EXPECT_TRUE(reader->read_only());
  EXPECT_EQ(GetLatest(*reader, K(Kind::kTable, {1})), "committed");

  auto held = reader->GetSnapshot();
  WriteBatch later;
  later.Put(K(Kind::kTable, {2}), "later");
  writer->Write(later);
  EXPECT_EQ(GetLatest(*reader, K(Kind::kTable, {2})), "later");  // a new snapshot catches up
  EXPECT_EQ(held->Get(K(Kind::kTable, {2})), std::nullopt);      // a held one does not move
  EXPECT_EQ(ScanAll(*held, PrefixRange(Subspace::kCurrent, Kind::kTable)).size(), 1u);

  EXPECT_THROW(reader->Write(batch), ReadOnlyError);
  EXPECT_THROW(reader->WriteIfHeadUnchanged("h", std::nullopt, batch), ReadOnlyError);
}

TEST_P(KvStoreContract, ReadOnlyOpenOfMissingStoreIsNotFound) {
  EXPECT_THROW(Open(/*read_only=*/true), NotFoundError);
  EXPECT_THROW(Open(/*read_only=*/false, /*create_if_missing=*/false), NotFoundError);
  EXPECT_NO_THROW(Open());  // allowed to create, it does
}

}  // namespace
}  // namespace moraine::test
