// OverlaidSnapshot: a batch laid over a RocksDB snapshot must read exactly as
// the store would after writing that batch: the same Get, the same Scan of
// any range, the same LastKeyIn. Checked against the store itself, written,
// over many random stores and overlays.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "store/error.h"
#include "store/kv_store.h"
#include "store/overlaid_snapshot.h"
#include "store/write_batch.h"

namespace moraine::store {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

Pairs ScanAll(const KvSnapshot& snapshot, const KeyRange& range) {
  Pairs out;
  for (auto it = snapshot.Scan(range); it->Valid(); it->Next()) {
    out.emplace_back(std::string(it->key()), std::string(it->value()));
  }
  return out;
}

// Keys from a small alphabet, so that base, overlay and range bounds meet.
std::string RandomKey(std::mt19937& random) {
  std::uniform_int_distribution<int> length(1, 3);
  std::uniform_int_distribution<int> letter(0, 3);
  std::string key;
  for (int i = length(random); i > 0; --i) key.push_back(static_cast<char>('a' + letter(random)));
  return key;
}

WriteBatch RandomBatch(std::mt19937& random, int ops, bool deletes) {
  WriteBatch batch;
  std::uniform_int_distribution<int> kind(0, 2);
  for (int i = 0; i < ops; ++i) {
    const std::string key = RandomKey(random);
    if (deletes && kind(random) == 0) {
      batch.Delete(key);
    } else {
      batch.Put(key, "v" + std::to_string(i) + key);
    }
  }
  return batch;
}

TEST(OverlaidSnapshotTest, ReadsAsTheStoreDoesOnceTheOverlayIsWritten) {
  std::mt19937 random(20261207);
  for (int round = 0; round < 200; ++round) {
    const WriteBatch base_writes = RandomBatch(random, 30, false);
    const WriteBatch overlay = RandomBatch(random, 15, true);
    auto store = OpenKvStore({.location = "memory://"});
    store->Write(base_writes);
    const OverlaidSnapshot overlaid(store->GetSnapshot(), overlay);
    store->Write(overlay);
    const auto written = store->GetSnapshot();

    for (int probe = 0; probe < 20; ++probe) {
      const std::string key = RandomKey(random);
      ASSERT_EQ(overlaid.Get(key), written->Get(key)) << "round " << round << " key " << key;
      std::string begin = RandomKey(random);
      std::string end = probe % 4 == 0 ? "" : RandomKey(random);
      if (!end.empty() && end < begin) std::swap(begin, end);
      const KeyRange range{begin, end};
      ASSERT_EQ(ScanAll(overlaid, range), ScanAll(*written, range))
          << "round " << round << " range [" << begin << ", " << end << ")";
      ASSERT_EQ(overlaid.LastKeyIn(range), written->LastKeyIn(range))
          << "round " << round << " range [" << begin << ", " << end << ")";
    }
  }
}

TEST(OverlaidSnapshotTest, TheLastOperationOnAKeyDecides) {
  auto store = OpenKvStore({.location = "memory://"});
  WriteBatch base;
  base.Put("a", "stored");
  base.Put("b", "stored");
  store->Write(base);
  WriteBatch overlay;
  overlay.Delete("a");
  overlay.Put("a", "again");
  overlay.Put("b", "put");
  overlay.Delete("b");
  const OverlaidSnapshot overlaid(store->GetSnapshot(), overlay);
  EXPECT_EQ(overlaid.Get("a"), "again");
  EXPECT_EQ(overlaid.Get("b"), std::nullopt);
  EXPECT_EQ(ScanAll(overlaid, {"", ""}), (Pairs{{"a", "again"}}));
}

TEST(OverlaidSnapshotTest, LaterWritesToTheStoreAreNotSeen) {
  auto store = OpenKvStore({.location = "memory://"});
  WriteBatch overlay;
  overlay.Put("b", "overlay");
  const OverlaidSnapshot overlaid(store->GetSnapshot(), overlay);
  WriteBatch later;
  later.Put("a", "later");
  store->Write(later);
  EXPECT_EQ(overlaid.Get("a"), std::nullopt);
  EXPECT_EQ(ScanAll(overlaid, {"", ""}), (Pairs{{"b", "overlay"}}));
}

TEST(OverlaidSnapshotTest, OverlaysStack) {
  auto store = OpenKvStore({.location = "memory://"});
  WriteBatch base;
  base.Put("a", "stored");
  store->Write(base);
  WriteBatch first;
  first.Put("b", "first");
  WriteBatch second;
  second.Delete("a");
  second.Put("c", "second");
  auto one = std::make_shared<OverlaidSnapshot>(store->GetSnapshot(), first);
  const OverlaidSnapshot two(one, second);
  EXPECT_EQ(ScanAll(two, {"", ""}), (Pairs{{"b", "first"}, {"c", "second"}}));
  EXPECT_EQ(two.LastKeyIn({"", "c"}), "b");
}

TEST(OverlaidSnapshotTest, ASnapshotIsRequired) {
  EXPECT_THROW(OverlaidSnapshot(nullptr, WriteBatch{}), InvalidArgumentError);
}

}  // namespace
}  // namespace moraine::store
