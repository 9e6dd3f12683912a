// StagedView: a transaction's staged writes laid over a RocksDB snapshot. Its
// LastKeyIn must agree with the greatest key its Scan visits, whatever the
// staged puts and deletes around the end of the range.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "commit/rows/staged_view.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/write_batch.h"

namespace moraine::commit {
namespace {

using store::Key;
using store::Kind;

std::string Column(uint64_t table, uint64_t column) {
  return Key::Current(Kind::kColumn, {table, column}).Encode();
}

class StagedViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = "memory://"});
    store::WriteBatch batch;
    for (uint64_t column : {1, 2, 3, 5}) batch.Put(Column(1, column), "stored");
    batch.Put(Column(2, 0), "stored");
    store_->Write(batch);
  }

  // What Scan says the greatest key of table `table`'s columns is.
  static std::optional<std::string> LastScanned(const StagedView& view, uint64_t table) {
    std::optional<std::string> last;
    view.Scan(store::TableRange(store::Subspace::kCurrent, Kind::kColumn, table),
              [&](std::string_view key, std::string_view) { last = std::string(key); });
    return last;
  }
  static std::optional<std::string> Last(const StagedView& view, uint64_t table) {
    const auto last =
        view.LastKeyIn(store::TableRange(store::Subspace::kCurrent, Kind::kColumn, table));
    EXPECT_EQ(last, LastScanned(view, table));
    return last;
  }

  std::unique_ptr<store::KvStore> store_;
};

TEST_F(StagedViewTest, WithNothingStagedItIsTheSnapshotsLastKey) {
  StagedView view(store_->GetSnapshot());
  EXPECT_EQ(Last(view, 1), Column(1, 5));
  EXPECT_EQ(Last(view, 3), std::nullopt);
}

TEST_F(StagedViewTest, AStagedPutPastTheStoredKeysIsTheLast) {
  StagedView view(store_->GetSnapshot());
  view.Put(Column(1, 9), "staged");
  view.Put(Column(3, 4), "staged");  // another table: out of range
  EXPECT_EQ(Last(view, 1), Column(1, 9));
  EXPECT_EQ(Last(view, 3), Column(3, 4));
}

TEST_F(StagedViewTest, StagedDeletesHideStoredKeysFromTheEnd) {
  StagedView view(store_->GetSnapshot());
  view.Delete(Column(1, 5));
  view.Delete(Column(1, 3));
  EXPECT_EQ(Last(view, 1), Column(1, 2));
  view.Delete(Column(1, 2));
  view.Delete(Column(1, 1));
  EXPECT_EQ(Last(view, 1), std::nullopt);
}

TEST_F(StagedViewTest, AStagedPutBelowAHiddenKeyIsFoundBehindTrailingDeletes) {
  StagedView view(store_->GetSnapshot());
  view.Put(Column(1, 4), "staged");
  view.Delete(Column(1, 5));
  view.Put(Column(1, 6), "staged");
  view.Delete(Column(1, 6));  // a put staged, then deleted
  EXPECT_EQ(Last(view, 1), Column(1, 4));
}

}  // namespace
}  // namespace moraine::commit
