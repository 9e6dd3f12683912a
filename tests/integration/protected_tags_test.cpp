// Protected tags (commit/tags/) on a real RocksDB store: made, listed and
// ended as records of their own; refused moves that write nothing; the
// catalog's guard on a tagged snapshot's row; tags and expiries ordered by
// the head; and `moraine verify` on a tag whose snapshot is gone.
#include "commit/tags/tag_book.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"
#include "tools/store_verifier.h"
#include "tools/tag_table.h"

namespace moraine {
namespace {

using commit::BeginRowTransaction;
using commit::RowTransaction;
using commit::tags::CreateTag;
using commit::tags::ListTags;
using commit::tags::ProtectedTag;
using commit::tags::RemoveTag;
using commit::tags::TaggedSnapshot;
using test::kNull;

using KeyValues = std::map<std::string, std::string>;

commit::tags::TagRequest Request(std::string name, std::optional<int64_t> snapshot = std::nullopt,
                                 std::optional<std::string> author = std::nullopt) {
  return {std::move(name), snapshot, std::move(author)};
}

KeyValues Everything(store::KvStore& store) { return test::AllKeyValues(*store.GetSnapshot()); }

// The violations `moraine verify` finds in the tags (the fixture's rows are
// only as complete as these tests need, so other checks are not asked).
std::vector<tools::Violation> TagViolations(store::KvStore& store) {
  std::vector<tools::Violation> found;
  for (auto& violation : tools::VerifyStore(*store.GetSnapshot()).violations) {
    if (violation.check.starts_with("tag-") ||
        violation.key.find("protected_tag") != std::string::npos) {
      found.push_back(std::move(violation));
    }
  }
  return found;
}

// The handle of the ducklake_snapshot row of `snapshot` in `txn`.
std::optional<commit::RowHandle> SnapshotRow(RowTransaction& txn, int64_t snapshot) {
  std::optional<commit::RowHandle> found;
  txn.Scan("ducklake_snapshot", {}, [&](commit::RowHandle handle, const catalog::Row& row) {
    if (std::get<int64_t>(row[0]) == snapshot) found = handle;
  });
  return found;
}

// A lake with snapshots 0 (DuckLake's first) to 3, each its own commit.
class ProtectedTagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = test::NewStoreLikeDuckLake(dir_.path("lake.moraine"));
    for (int64_t snapshot = 1; snapshot <= 3; ++snapshot) {
      auto txn = BeginRowTransaction(store_);
      txn->Insert("ducklake_snapshot", {snapshot, kNull, int64_t{0}, int64_t{1}, int64_t{0}});
      txn->Commit();
    }
  }

  // Expires `snapshot` as DuckLake does: deletes its snapshot row.
  void Expire(int64_t snapshot) {
    auto txn = BeginRowTransaction(store_);
    txn->Delete("ducklake_snapshot", SnapshotRow(*txn, snapshot).value());
    txn->Commit();
  }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
};

TEST_F(ProtectedTagsTest, ATagIsMadeListedEndedAndItsNameFreedAgain) {
  const ProtectedTag head = CreateTag(store_, Request("nightly", std::nullopt, "ci"));
  EXPECT_EQ(head.snapshot_id, 3);  // the newest, by default
  EXPECT_EQ(head.created_at_head, 3);
  const ProtectedTag old = CreateTag(store_, Request("release 1.0", 1));
  EXPECT_EQ(old.snapshot_id, 1);
  EXPECT_GT(old.tag_id, head.tag_id);
  EXPECT_EQ(TaggedSnapshot(store_, "release 1.0"), 1);

  const auto listed = ListTags(store_);
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0], head);
  EXPECT_EQ(listed[0].author, "ci");
  EXPECT_EQ(listed[1], old);

  const ProtectedTag ended = RemoveTag(store_, "nightly");
  EXPECT_TRUE(ended.ended());
  EXPECT_EQ(ended.removed_at_head, 3);
  EXPECT_EQ(ListTags(store_).size(), 1u);
  EXPECT_EQ(ListTags(store_, /*include_ended=*/true).size(), 2u);
  EXPECT_THROW(TaggedSnapshot(store_, "nightly"), store::NotFoundError);

  // The name is free again; the new tag has an id of its own.
  const ProtectedTag again = CreateTag(store_, Request("nightly", 2));
  EXPECT_GT(again.tag_id, old.tag_id);
  EXPECT_EQ(TaggedSnapshot(store_, "nightly"), 2);

  // What the store tools show: the unended tags, or all of them.
  auto view = store_->GetSnapshot();
  EXPECT_EQ(tools::ProtectedTagTable(*view, false).rows.size(), 2u);
  const auto all = tools::ProtectedTagTable(*view, true);
  ASSERT_EQ(all.rows.size(), 3u);
  EXPECT_EQ(std::get<std::string>(all.rows[0][0]), "nightly");
  EXPECT_FALSE(std::holds_alternative<std::monostate>(all.rows[0][5]));  // removed
  EXPECT_TRUE(std::holds_alternative<std::monostate>(all.rows[2][5]));
  EXPECT_TRUE(TagViolations(*store_).empty());
}

TEST_F(ProtectedTagsTest, RefusedMovesAreTypedAndWriteNothing) {
  CreateTag(store_, Request("kept", 2));
  const KeyValues before = Everything(*store_);
  EXPECT_THROW(CreateTag(store_, Request("")), store::InvalidArgumentError);
  EXPECT_THROW(CreateTag(store_, Request(std::string(129, 'x'))), store::InvalidArgumentError);
  EXPECT_THROW(CreateTag(store_, Request("tab\there")), store::InvalidArgumentError);
  try {
    CreateTag(store_, Request("kept"));
    ADD_FAILURE() << "a second tag of one name was made";
  } catch (const store::ConstraintError& error) {
    EXPECT_NE(std::string(error.what()).find("protects snapshot 2"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(CreateTag(store_, Request("future", 4)), store::NotFoundError);
  EXPECT_THROW(CreateTag(store_, Request("negative", -1)), store::NotFoundError);
  Expire(1);
  const KeyValues after_expiry = Everything(*store_);
  EXPECT_THROW(CreateTag(store_, Request("expired", 1)), store::NotFoundError);
  EXPECT_THROW(RemoveTag(store_, "never made"), store::NotFoundError);
  EXPECT_EQ(Everything(*store_), after_expiry);
  EXPECT_NE(before, after_expiry);

  // A store DuckLake has not initialized has nothing to tag.
  std::shared_ptr<store::KvStore> empty =
      store::OpenKvStore({.location = dir_.path("empty.moraine")});
  EXPECT_THROW(CreateTag(empty, Request("x")), store::InvalidArgumentError);
  EXPECT_TRUE(Everything(*empty).empty());
  EXPECT_TRUE(ListTags(empty).empty());
}

TEST_F(ProtectedTagsTest, TheCatalogRefusesToDeleteATaggedSnapshotsRow) {
  CreateTag(store_, Request("audit", 2));
  const KeyValues before = Everything(*store_);
  auto txn = BeginRowTransaction(store_);
  txn->Delete("ducklake_snapshot", SnapshotRow(*txn, 1).value());  // untagged: fine
  try {
    txn->Delete("ducklake_snapshot", SnapshotRow(*txn, 2).value());
    ADD_FAILURE() << "a tagged snapshot's row was deleted";
  } catch (const store::ConstraintError& error) {
    EXPECT_NE(std::string(error.what()).find("'audit'"), std::string::npos) << error.what();
  }
  txn->Rollback();
  EXPECT_EQ(Everything(*store_), before);

  // Once the tag has ended, the snapshot expires like any other.
  RemoveTag(store_, "audit");
  Expire(2);
  EXPECT_FALSE(BeginRowTransaction(store_)->SnapshotAt(2));
}

// A tag and an expiry of its snapshot cannot both land: whichever lands
// second began before the first landed, and the head says so.
TEST_F(ProtectedTagsTest, ATagAndAnExpiryOfItsSnapshotAreOrderedByTheHead) {
  auto expiry = BeginRowTransaction(store_);
  expiry->Delete("ducklake_snapshot", SnapshotRow(*expiry, 2).value());
  CreateTag(store_, Request("raced", 2));
  EXPECT_THROW(expiry->Commit(), store::ConflictError);
  EXPECT_TRUE(BeginRowTransaction(store_)->SnapshotAt(2));

  // The other order: the expiry lands first, and the tag finds nothing to hold.
  auto tagger = BeginRowTransaction(store_);
  Expire(1);
  tagger->Rollback();
  EXPECT_THROW(CreateTag(store_, Request("late", 1)), store::NotFoundError);
  EXPECT_TRUE(TagViolations(*store_).empty());
}

TEST_F(ProtectedTagsTest, VerifyReportsATagWhoseSnapshotIsGoneAndANameHeldTwice) {
  ProtectedTag stray;
  stray.tag_id = 7;
  stray.name = "stray";
  stray.snapshot_id = 99;
  ProtectedTag twin = stray;
  twin.tag_id = 8;
  twin.snapshot_id = 3;
  store::WriteBatch batch;
  batch.Put(commit::tags::ProtectedTagKey(7), commit::tags::EncodeProtectedTag(stray));
  batch.Put(commit::tags::ProtectedTagKey(8), commit::tags::EncodeProtectedTag(twin));
  store_->Write(batch);
  const auto violations = TagViolations(*store_);
  std::map<std::string, int> checks;
  for (const auto& violation : violations) ++checks[violation.check];
  EXPECT_EQ(checks["tag-snapshot"], 1);
  EXPECT_EQ(checks["tag-name"], 1);
  EXPECT_EQ(violations.size(), 2u);
}

}  // namespace
}  // namespace moraine
