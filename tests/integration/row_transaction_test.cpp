// The staged-row path on a real RocksDB store: DuckLake-shaped rows in, the
// same rows out, one batch per commit, lost races as conflicts.
#include "commit/rows/row_transaction.h"

#include <gtest/gtest.h>

#include <map>

#include "catalog/ducklake_tables.h"
#include "commit/lake/catalog_caching_store.h"
#include "commit/lake/store_records.h"
#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/staged_rows.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using catalog::Cell;
using catalog::OpaqueValue;
using catalog::Row;
using commit::BeginRowTransaction;
using commit::ColumnBound;
using commit::RowHandle;
using commit::RowTransaction;
using commit::TableSpec;

using test::ColumnRow;
using test::kNull;

std::vector<std::pair<RowHandle, Row>> ScanAll(RowTransaction& txn, std::string_view table,
                                               const std::vector<ColumnBound>& bounds = {}) {
  std::vector<std::pair<RowHandle, Row>> rows;
  txn.Scan(table, bounds,
           [&](RowHandle handle, const Row& row) { rows.emplace_back(handle, row); });
  return rows;
}

std::vector<Row> Rows(RowTransaction& txn, std::string_view table,
                      const std::vector<ColumnBound>& bounds = {}) {
  std::vector<Row> rows;
  for (auto& [handle, row] : ScanAll(txn, table, bounds)) rows.push_back(row);
  return rows;
}

size_t KeysIn(store::KvStore& store, store::Subspace subspace, store::Kind kind) {
  size_t count = 0;
  auto view = store.GetSnapshot();
  for (auto it = view->Scan(store::PrefixRange(subspace, kind)); it->Valid(); it->Next()) ++count;
  return count;
}

// What DuckLake writes when it initializes a fresh catalog, plus its data
// path and the main schema.
void InitializeWithMainSchema(RowTransaction& txn) {
  test::InitializeLikeDuckLake(txn);
  txn.Insert("ducklake_metadata",
             {std::string("data_path"), std::string("/lake/files/"), kNull, kNull});
  txn.Insert("ducklake_schema",
             {int64_t{0}, std::string("5a0c3c39-0000-4000-8000-000000000000"), int64_t{0}, kNull,
              std::string("main"), std::string("main/"), true});
}

class RowTransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = store::OpenKvStore({.location = dir_.path("lake.moraine")});
    auto init = Begin();
    InitializeWithMainSchema(*init);
    init->Commit();
  }

  std::unique_ptr<RowTransaction> Begin() { return BeginRowTransaction(store_); }

  test::TempDir dir_;
  std::shared_ptr<store::KvStore> store_;
};

TEST(RowTransactionFresh, AnUninitializedStoreHasNoTablesUntilDuckLakeCreatesThem) {
  auto store = std::shared_ptr<store::KvStore>(store::OpenKvStore({.location = "memory://"}));
  auto txn = BeginRowTransaction(store);
  EXPECT_FALSE(txn->FindTable("ducklake_metadata"));
  EXPECT_TRUE(txn->TableNames().empty());
  EXPECT_THROW(Rows(*txn, "ducklake_metadata"), store::NotFoundError);
  InitializeWithMainSchema(*txn);
  txn->Commit();

  auto next = BeginRowTransaction(store);
  EXPECT_EQ(next->TableNames().size(), 28u);
  ASSERT_TRUE(next->FindTable("ducklake_column"));
  EXPECT_EQ(next->FindTable("ducklake_column")->columns.size(), 13u);
  EXPECT_EQ(Rows(*next, "ducklake_schema").size(), 1u);
}

TEST(RowTransactionFresh, InitializationMustInsertTheFirstSnapshot) {
  auto store = std::shared_ptr<store::KvStore>(store::OpenKvStore({.location = "memory://"}));
  auto txn = BeginRowTransaction(store);
  txn->CreateTable({"ducklake_table_stats",
                    {{"table_id", "BIGINT"},
                     {"record_count", "BIGINT"},
                     {"next_row_id", "BIGINT"},
                     {"file_size_bytes", "BIGINT"}},
                    {}});
  EXPECT_THROW(txn->Commit(), store::InvalidArgumentError);
  EXPECT_FALSE(BeginRowTransaction(store)->FindTable("ducklake_table_stats"));
}

TEST_F(RowTransactionTest, RowsComeBackExactlyAsWritten) {
  auto txn = Begin();
  EXPECT_EQ(Rows(*txn, "ducklake_snapshot"),
            (std::vector<Row>{
                {int64_t{0}, int64_t{1700000000000000}, int64_t{0}, int64_t{1}, int64_t{0}}}));
  EXPECT_EQ(Rows(*txn, "ducklake_snapshot_changes"),
            (std::vector<Row>{
                {int64_t{0}, std::string("created_schema:\"main\""), kNull, kNull, kNull}}));
  EXPECT_EQ(Rows(*txn, "ducklake_metadata").size(), 2u);
  EXPECT_EQ(Rows(*txn, "ducklake_metadata")[0][2], kNull);  // global scope stays NULL
}

TEST_F(RowTransactionTest, EndingAVersionMovesItFromCurrentToHistoryInOneCommit) {
  auto txn = Begin();
  txn->Insert("ducklake_column", ColumnRow(1, 1, "a", 1));
  txn->Commit();

  auto rename = Begin();
  auto rows = ScanAll(*rename, "ducklake_column");
  ASSERT_EQ(rows.size(), 1u);
  Row ended = rows[0].second;
  ended[2] = int64_t{2};  // UPDATE ... SET end_snapshot = 2
  rename->Update("ducklake_column", rows[0].first, ended);
  rename->Insert("ducklake_column", ColumnRow(1, 1, "a2", 2));
  rename->Commit();

  EXPECT_EQ(KeysIn(*store_, store::Subspace::kCurrent, store::Kind::kColumn), 1u);
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kHistory, store::Kind::kColumn), 1u);
  auto after = Rows(*Begin(), "ducklake_column");
  ASSERT_EQ(after.size(), 2u);  // both versions, as DuckLake's own table holds them
  // In DuckLake's order too: the ended version was inserted first.
  EXPECT_EQ(after[0][5], Cell(std::string("a")));
  EXPECT_EQ(after[0][2], Cell(int64_t{2}));
  EXPECT_EQ(after[1][5], Cell(std::string("a2")));
}

TEST_F(RowTransactionTest, AnotherWritersCommitMakesTheLaterOneAConflictAndWritesNothing) {
  auto first = Begin();
  auto second = Begin();
  for (auto* txn : {first.get(), second.get()}) {
    txn->Insert("ducklake_snapshot",
                {int64_t{1}, int64_t{1700000000000001}, int64_t{1}, int64_t{2}, int64_t{0}});
  }
  second->Insert("ducklake_column", ColumnRow(1, 1, "lost", 1));
  first->Commit();
  try {
    second->Commit();
    FAIL() << "the second commit must lose";
  } catch (const store::ConflictError& error) {
    EXPECT_NE(std::string(error.what()).find("conflict"), std::string::npos);
  }
  EXPECT_TRUE(Rows(*Begin(), "ducklake_column").empty());
  EXPECT_EQ(Rows(*Begin(), "ducklake_snapshot").size(), 2u);
}

// Through the handle a process shares (commit/lake/catalog_caching_store.h), a
// transaction whose head another transaction of the process has already
// committed on learns it at its next write, before it stages a batch that
// could never land; one of another process's head learns it at its commit.
TEST_F(RowTransactionTest, ALostRaceInThisProcessIsToldAtTheNextWriteAndWritesNothing) {
  store_.reset();
  auto shared = std::make_shared<commit::CatalogCachingStore>(
      store::OpenKvStore({.location = dir_.path("lake.moraine")}));
  auto first = BeginRowTransaction(shared);
  auto second = BeginRowTransaction(shared);
  auto third = BeginRowTransaction(shared);
  second->Insert("ducklake_snapshot",
                 {int64_t{1}, int64_t{1700000000000001}, int64_t{1}, int64_t{2}, int64_t{0}});
  first->Insert("ducklake_snapshot",
                {int64_t{1}, int64_t{1700000000000001}, int64_t{1}, int64_t{2}, int64_t{0}});
  first->Commit();
  EXPECT_THROW(second->Insert("ducklake_column", ColumnRow(1, 1, "lost", 1)), store::ConflictError);
  EXPECT_THROW(second->Commit(), store::ConflictError);
  EXPECT_THROW(third->Insert("ducklake_snapshot", {int64_t{1}, int64_t{1700000000000002},
                                                   int64_t{1}, int64_t{2}, int64_t{0}}),
               store::ConflictError);
  // A transaction begun on the new head writes as before.
  auto fourth = BeginRowTransaction(shared);
  fourth->Insert("ducklake_snapshot",
                 {int64_t{2}, int64_t{1700000000000003}, int64_t{1}, int64_t{2}, int64_t{0}});
  fourth->Commit();
  auto view = BeginRowTransaction(shared);
  EXPECT_TRUE(Rows(*view, "ducklake_column").empty());
  EXPECT_EQ(Rows(*view, "ducklake_snapshot").size(), 3u);
}

// The head carries its snapshot's counters, so a commit learns its base
// without reading the snapshot's record (on etcd, a round trip inside the
// turn of a writer that lost its race); a head without them, as a format
// migration writes it, falls back to the record.
TEST_F(RowTransactionTest, TheHeadCarriesItsSnapshotsCountersAndAHeadWithoutThemReadsTheRecord) {
  auto txn = Begin();
  txn->Insert("ducklake_snapshot",
              {int64_t{1}, int64_t{1700000000000001}, int64_t{4}, int64_t{7}, int64_t{3}});
  txn->Commit();
  const std::string snapshot_key = store::Key::Current(store::Kind::kSnapshot, {1}).Encode();
  const auto head_value = store_->GetSnapshot()->Get(commit::HeadKey());
  ASSERT_TRUE(head_value);
  store::v1::HeadRecord head;
  store::UnframeValue(store::Kind::kHead, *head_value, &head);
  EXPECT_EQ(head.snapshot_id(), 1u);
  ASSERT_TRUE(head.has_newest_counters());
  EXPECT_EQ(head.newest_counters().schema_version(), 4);
  EXPECT_EQ(head.newest_counters().next_catalog_id(), 7);
  EXPECT_EQ(head.newest_counters().next_file_id(), 3);
  const commit::SnapshotCounters expected{1, 4, 7, 3};
  EXPECT_EQ(Begin()->LatestSnapshot(), expected);

  // The record changed behind the head's back (a raw write, no commit): the
  // head still answers, so the record was not read.
  const auto record_value = store_->GetSnapshot()->Get(snapshot_key);
  ASSERT_TRUE(record_value);
  store::v1::SnapshotRecord record;
  store::UnframeValue(store::Kind::kSnapshot, *record_value, &record);
  record.set_next_file_id(99);
  store::WriteBatch raw;
  raw.Put(snapshot_key, store::FrameValue(store::Kind::kSnapshot, record));
  store_->Write(raw);
  EXPECT_EQ(Begin()->LatestSnapshot(), expected);

  // A head without the counters reads the record.
  store::WriteBatch migrated;
  migrated.Put(commit::HeadKey(), commit::EncodeHead(1, head.batch_count()));
  store_->Write(migrated);
  const commit::SnapshotCounters from_record{1, 4, 7, 99};
  EXPECT_EQ(Begin()->LatestSnapshot(), from_record);
  // The next commit that stages the snapshot's record writes them again.
  auto next = Begin();
  next->Insert("ducklake_snapshot",
               {int64_t{2}, int64_t{1700000000000002}, int64_t{4}, int64_t{8}, int64_t{3}});
  next->Commit();
  const auto next_head = store_->GetSnapshot()->Get(commit::HeadKey());
  store::UnframeValue(store::Kind::kHead, *next_head, &head);
  ASSERT_TRUE(head.has_newest_counters());
  EXPECT_EQ(head.newest_counters().next_catalog_id(), 8);
}

TEST_F(RowTransactionTest, InsertingAnExistingSnapshotIsAConflict) {
  auto txn = Begin();
  EXPECT_THROW(
      txn->Insert("ducklake_snapshot", {int64_t{0}, kNull, int64_t{0}, int64_t{1}, int64_t{0}}),
      store::ConflictError);
}

TEST_F(RowTransactionTest, SnapshotAndChangesRowsLiveAndDieSeparately) {
  auto txn = Begin();
  auto snapshots = ScanAll(*txn, "ducklake_snapshot");
  txn->Delete("ducklake_snapshot", snapshots[0].first);
  EXPECT_TRUE(Rows(*txn, "ducklake_snapshot").empty());  // read your own delete
  EXPECT_EQ(Rows(*txn, "ducklake_snapshot_changes").size(), 1u);
  txn->Commit();
  auto next = Begin();
  EXPECT_TRUE(Rows(*next, "ducklake_snapshot").empty());
  auto changes = ScanAll(*next, "ducklake_snapshot_changes");
  ASSERT_EQ(changes.size(), 1u);
  next->Delete("ducklake_snapshot_changes", changes[0].first);
  next->Commit();
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kSnapshot, store::Kind::kSnapshot), 0u);
}

TEST_F(RowTransactionTest, TagsAreEntriesThatEndAndDisappearIndividually) {
  auto txn = Begin();
  txn->Insert("ducklake_tag",
              {int64_t{5}, int64_t{1}, kNull, std::string("comment"), std::string("first")});
  txn->Insert("ducklake_tag",
              {int64_t{5}, int64_t{1}, kNull, std::string("owner"), std::string("ops")});
  txn->Commit();
  auto update = Begin();
  auto tags = ScanAll(*update, "ducklake_tag");
  ASSERT_EQ(tags.size(), 2u);
  Row ended = tags[0].second;
  ended[2] = int64_t{3};
  update->Update("ducklake_tag", tags[0].first, ended);
  update->Delete("ducklake_tag", tags[1].first);
  update->Commit();
  EXPECT_EQ(Rows(*Begin(), "ducklake_tag"),
            (std::vector<Row>{{int64_t{5}, int64_t{1}, int64_t{3}, std::string("comment"),
                               std::string("first")}}));
}

TEST_F(RowTransactionTest, ScopedOptionsKeepTheirScope) {
  auto txn = Begin();
  txn->Insert("ducklake_metadata", {std::string("data_inlining_row_limit"), std::string("20"),
                                    std::string("table"), int64_t{7}});
  txn->Commit();
  auto rows = Rows(*Begin(), "ducklake_metadata");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.back(), (Row{std::string("data_inlining_row_limit"), std::string("20"),
                              std::string("table"), int64_t{7}}));
  EXPECT_THROW(Begin()->Insert("ducklake_metadata", {std::string("k"), std::string("v"),
                                                     std::string("galaxy"), int64_t{1}}),
               store::InvalidArgumentError);
}

TEST_F(RowTransactionTest, TheCatalogVersionOptionIsReserved) {
  auto txn = Begin();
  auto options = ScanAll(*txn, "ducklake_metadata");
  const auto version = std::find_if(options.begin(), options.end(), [](const auto& option) {
    return option.second[0] == Cell(std::string("version"));
  });
  ASSERT_NE(version, options.end());
  Row raised = version->second;
  raised[1] = std::string("1.1");
  EXPECT_THROW(txn->Update("ducklake_metadata", version->first, raised), store::ConstraintError);
  EXPECT_THROW(txn->Delete("ducklake_metadata", version->first), store::ConstraintError);
  EXPECT_THROW(
      txn->Insert("ducklake_metadata", {std::string("version"), std::string("2.0"), kNull, kNull}),
      store::ConstraintError);
  // A table-scoped option of that name is just an option.
  txn->Insert("ducklake_metadata",
              {std::string("version"), std::string("x"), std::string("table"), int64_t{3}});
  txn->Commit();
  auto after = Rows(*Begin(), "ducklake_metadata");
  EXPECT_NE(std::find(after.begin(), after.end(),
                      Row{std::string("version"), std::string("1.0"), kNull, kNull}),
            after.end());
}

TEST_F(RowTransactionTest, BoundsNarrowScansWithoutChangingTheirAnswer) {
  auto txn = Begin();
  for (int64_t table = 1; table <= 3; ++table) {
    for (int64_t column = 1; column <= 3; ++column) {
      txn->Insert("ducklake_column", ColumnRow(table, column, "c", 1));
    }
  }
  // ducklake_column.table_id is column 3.
  auto rows = Rows(*txn, "ducklake_column", {{3, int64_t{2}, int64_t{2}}});
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) EXPECT_EQ(row[3], Cell(int64_t{2}));
  EXPECT_EQ(Rows(*txn, "ducklake_column", {{3, int64_t{2}, std::nullopt}}).size(), 6u);
  EXPECT_TRUE(Rows(*txn, "ducklake_column", {{3, int64_t{4}, int64_t{3}}}).empty());
}

// ducklake_inlined_data_1_1 of a table with one VARCHAR column, `name`.
TableSpec InlinedNamesSpec() {
  return {"ducklake_inlined_data_1_1",
          {{"row_id", "BIGINT"},
           {"begin_snapshot", "BIGINT"},
           {"end_snapshot", "BIGINT"},
           {"name", "VARCHAR"}},
          {}};
}

TEST_F(RowTransactionTest, InlinedTablesKeepOpaqueCellsAndVanishWhenDropped) {
  auto txn = Begin();
  const TableSpec spec{"ducklake_inlined_data_1_2",
                       {{"row_id", "BIGINT"},
                        {"begin_snapshot", "BIGINT"},
                        {"end_snapshot", "BIGINT"},
                        {"s", "STRUCT(a INTEGER)"}},
                       {}};
  txn->CreateTable(spec);
  EXPECT_THROW(txn->CreateTable(spec), store::ConstraintError);
  txn->Insert(spec.name, {int64_t{0}, int64_t{2}, kNull, OpaqueValue{std::string("\x01\x00", 2)}});
  txn->Insert(spec.name, {int64_t{1}, int64_t{2}, kNull, kNull});
  txn->Commit();

  auto next = Begin();
  ASSERT_TRUE(next->FindTable(spec.name));
  EXPECT_EQ(next->FindTable(spec.name)->columns, spec.columns);
  EXPECT_EQ(
      Rows(*next, spec.name),
      (std::vector<Row>{{int64_t{0}, int64_t{2}, kNull, OpaqueValue{std::string("\x01\x00", 2)}},
                        {int64_t{1}, int64_t{2}, kNull, kNull}}));
  next->DropTable(spec.name);
  next->Commit();
  EXPECT_FALSE(Begin()->FindTable(spec.name));
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kInlineData, store::Kind::kInlinedRowBatch), 0u);
}

// A transaction reads an inlined table's existence once, then keeps its
// storage: a table it dropped must refuse rows at once, and one it creates
// again takes them.
TEST_F(RowTransactionTest, AnInlinedTableDroppedInTheTransactionRefusesRows) {
  auto txn = Begin();
  const TableSpec spec = InlinedNamesSpec();
  txn->CreateTable(spec);
  txn->Insert(spec.name, {int64_t{0}, int64_t{2}, kNull, OpaqueValue{"a"}});
  txn->DropTable(spec.name);
  EXPECT_THROW(txn->Insert(spec.name, {int64_t{1}, int64_t{2}, kNull, kNull}),
               store::NotFoundError);
  EXPECT_THROW(Rows(*txn, spec.name), store::NotFoundError);
  txn->CreateTable(spec);
  txn->Insert(spec.name, {int64_t{1}, int64_t{2}, kNull, kNull});
  EXPECT_EQ(Rows(*txn, spec.name), (std::vector<Row>{{int64_t{1}, int64_t{2}, kNull, kNull}}));
}

// A snapshot's inlined rows of a table are one record (commit/rows/inlined_row_batch.h):
// ending rows rewrites it, removing its last row deletes it, and a scan of
// the batches at a snapshot sees only those that began by then.
TEST_F(RowTransactionTest, OneSnapshotsInlinedRowsShareOneBatch) {
  auto txn = Begin();
  const TableSpec spec = InlinedNamesSpec();
  txn->CreateTable(spec);
  for (int64_t row = 0; row < 5; ++row) {
    txn->Insert(spec.name, {row, int64_t{2}, kNull, OpaqueValue{"r" + std::to_string(row)}});
  }
  txn->Insert(spec.name, {int64_t{5}, int64_t{3}, kNull, kNull});
  EXPECT_THROW(txn->Insert(spec.name, {int64_t{1}, int64_t{2}, kNull, kNull}),
               store::ConstraintError);
  EXPECT_THROW(txn->Insert(spec.name, {int64_t{9}, int64_t{2}, int64_t{-4}, kNull}),
               store::InvalidArgumentError);
  txn->Commit();
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kInlineData, store::Kind::kInlinedRowBatch), 2u);

  auto end = Begin();
  for (const auto& [handle, row] : ScanAll(*end, spec.name)) {
    if (row[0] == Cell(int64_t{1}) || row[0] == Cell(int64_t{3})) {
      Row ended = row;
      ended[2] = int64_t{4};
      end->Update(spec.name, handle, ended);
    }
  }
  end->Commit();
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kInlineData, store::Kind::kInlinedRowBatch), 2u);
  EXPECT_EQ(Begin()->LiveInlinedRowCount(spec.name, 3), 6);
  EXPECT_EQ(Begin()->LiveInlinedRowCount(spec.name, 4), 4);
  EXPECT_EQ(Begin()->LiveInlinedRowCount(spec.name, 2), 5);

  std::vector<std::pair<int64_t, size_t>> batches;
  Begin()->ScanInlinedBatches(spec.name, 2, [&](int64_t begin, const auto& batch) {
    batches.emplace_back(begin, batch.size());
    auto cells = batch.ColumnCells(0);
    EXPECT_EQ(cells.Next(), std::optional<std::string_view>("r0"));
    EXPECT_EQ(batch.end_snapshot(1), std::optional<int64_t>(4));
  });
  EXPECT_EQ(batches, (std::vector<std::pair<int64_t, size_t>>{{2, 5}}));
  EXPECT_THROW(
      Begin()->ScanInlinedBatches("ducklake_inlined_data_1_9", 2, [](auto, const auto&) {}),
      store::NotFoundError);

  // A flush's cleanup: every row that began by snapshot 2 deleted.
  auto flush = Begin();
  for (const auto& [handle, row] : ScanAll(*flush, spec.name)) {
    if (row[1] == Cell(int64_t{2})) flush->Delete(spec.name, handle);
  }
  flush->Commit();
  EXPECT_EQ(KeysIn(*store_, store::Subspace::kInlineData, store::Kind::kInlinedRowBatch), 1u);
  EXPECT_EQ(Rows(*Begin(), spec.name), (std::vector<Row>{{int64_t{5}, int64_t{3}, kNull, kNull}}));
}

store::v1::HeadRecord HeadOf(store::KvStore& store) {
  store::v1::HeadRecord head;
  store::UnframeValue(store::Kind::kHead, *store.GetSnapshot()->Get(commit::HeadKey()), &head);
  return head;
}

// The head bounds the inlined batches' begin snapshots, so a commit opens
// the batch of a newer snapshot without a read (on etcd, a round trip inside
// the turn of a writer that lost its race). A batch written ahead raises the
// bound; a head without one (a format migration's) leaves batches read.
TEST_F(RowTransactionTest, TheHeadBoundsInlinedBatchesSoANewerOneOpensUnread) {
  const TableSpec spec = InlinedNamesSpec();
  ASSERT_TRUE(HeadOf(*store_).has_inlined_batches_through());
  EXPECT_EQ(HeadOf(*store_).inlined_batches_through(), -1);
  auto create = Begin();
  create->CreateTable(spec);
  create->Insert(spec.name, {int64_t{0}, int64_t{4}, kNull, OpaqueValue{"ahead"}});
  create->Commit();
  EXPECT_EQ(HeadOf(*store_).inlined_batches_through(), 4);
  // Batch 4 is within the bound: read, its row id 0 is taken.
  EXPECT_THROW(Begin()->Insert(spec.name, {int64_t{0}, int64_t{4}, kNull, kNull}),
               store::ConstraintError);

  // A batch beyond the bound, written behind the head's back (the verifier
  // reports such a store): a commit does not read it, so it finds row id 0
  // free there and its batch replaces the raw one.
  const auto batch_at = [](uint64_t begin) {
    return store::Key::Current(store::Kind::kInlinedRowBatch, {1, 1, begin}).Encode();
  };
  const auto ahead = store_->GetSnapshot()->Get(batch_at(4));
  ASSERT_TRUE(ahead);
  store::WriteBatch raw;
  raw.Put(batch_at(5), *ahead);
  store_->Write(raw);
  auto unread = Begin();
  unread->Insert(spec.name, {int64_t{0}, int64_t{5}, kNull, OpaqueValue{"new"}});
  unread->Commit();
  EXPECT_EQ(HeadOf(*store_).inlined_batches_through(), 5);
  EXPECT_EQ(Rows(*Begin(), spec.name),
            (std::vector<Row>{{int64_t{0}, int64_t{4}, kNull, OpaqueValue{"ahead"}},
                              {int64_t{0}, int64_t{5}, kNull, OpaqueValue{"new"}}}));

  // A head without the bound: the batch is read, and the next commit's head
  // carries no bound either.
  const auto head = HeadOf(*store_);
  store::WriteBatch migrated;
  migrated.Put(batch_at(6), *ahead);
  migrated.Put(commit::HeadKey(),
               commit::EncodeHead(static_cast<int64_t>(head.snapshot_id()), head.batch_count()));
  store_->Write(migrated);
  EXPECT_THROW(Begin()->Insert(spec.name, {int64_t{0}, int64_t{6}, kNull, kNull}),
               store::ConstraintError);
  auto next = Begin();
  next->Insert(spec.name, {int64_t{1}, int64_t{7}, kNull, kNull});
  next->Commit();
  EXPECT_FALSE(HeadOf(*store_).has_inlined_batches_through());
}

TEST_F(RowTransactionTest, AnInlinedRowIdCanHaveOneVersionPerBeginSnapshot) {
  auto txn = Begin();
  const TableSpec spec = InlinedNamesSpec();
  txn->CreateTable(spec);
  txn->Insert(spec.name, {int64_t{0}, int64_t{2}, kNull, OpaqueValue{"one"}});
  txn->Commit();
  // DuckLake's UPDATE of an inlined row: end the version, insert the new one.
  auto update = Begin();
  auto rows = ScanAll(*update, spec.name);
  ASSERT_EQ(rows.size(), 1u);
  Row ended = rows[0].second;
  ended[2] = int64_t{3};
  update->Update(spec.name, rows[0].first, ended);
  update->Insert(spec.name, {int64_t{0}, int64_t{3}, kNull, OpaqueValue{"uno"}});
  update->Commit();
  EXPECT_EQ(Rows(*Begin(), spec.name),
            (std::vector<Row>{{int64_t{0}, int64_t{2}, int64_t{3}, OpaqueValue{"one"}},
                              {int64_t{0}, int64_t{3}, kNull, OpaqueValue{"uno"}}}));
  EXPECT_THROW(Begin()->Insert(spec.name, {int64_t{0}, int64_t{3}, kNull, OpaqueValue{"x"}}),
               store::ConstraintError);
}

// Commits ducklake_inlined_delete_1 holding one row.
void CreateDeleteTableWithARow(RowTransaction& txn) {
  txn.CreateTable({"ducklake_inlined_delete_1",
                   {{"file_id", "BIGINT"}, {"row_id", "BIGINT"}, {"begin_snapshot", "BIGINT"}},
                   {}});
  txn.Insert("ducklake_inlined_delete_1", {int64_t{3}, int64_t{9}, int64_t{4}});
  txn.Commit();
}

TEST_F(RowTransactionTest, AnInlinedDeleteTableOutlivesItsLastRow) {
  CreateDeleteTableWithARow(*Begin());
  auto next = Begin();
  auto rows = ScanAll(*next, "ducklake_inlined_delete_1");
  ASSERT_EQ(rows.size(), 1u);
  next->Delete("ducklake_inlined_delete_1", rows[0].first);
  next->Commit();
  EXPECT_TRUE(Begin()->FindTable("ducklake_inlined_delete_1"));
}

// Regression: dropping a delete table read its existence record as a data
// table's shape (DuckLake's ducklake_expire_snapshots after DROP TABLE).
TEST_F(RowTransactionTest, AnInlinedDeleteTableDropsWithItsRows) {
  CreateDeleteTableWithARow(*Begin());
  auto drop = Begin();
  drop->DropTable("ducklake_inlined_delete_1");
  drop->Commit();
  EXPECT_FALSE(Begin()->FindTable("ducklake_inlined_delete_1"));
}

TEST_F(RowTransactionTest, BadInputIsATypedErrorAndChangesNothing) {
  auto txn = Begin();
  EXPECT_THROW(txn->Insert("ducklake_column", {int64_t{1}}), store::InvalidArgumentError);
  Row null_key = ColumnRow(1, 1, "a", 1);
  null_key[0] = kNull;
  EXPECT_THROW(txn->Insert("ducklake_column", null_key), store::InvalidArgumentError);
  Row wrong_type = ColumnRow(1, 1, "a", 1);
  wrong_type[5] = int64_t{3};
  EXPECT_THROW(txn->Insert("ducklake_column", wrong_type), store::InvalidArgumentError);
  txn->Insert("ducklake_column", ColumnRow(1, 1, "a", 1));
  EXPECT_THROW(txn->Insert("ducklake_column", ColumnRow(1, 1, "a", 1)), store::ConstraintError);
  EXPECT_THROW(txn->CreateTable({"users", {{"id", "BIGINT"}}, {}}), store::InvalidArgumentError);
  EXPECT_THROW(txn->DropTable("ducklake_column"), store::InvalidArgumentError);
  EXPECT_THROW(txn->Update("ducklake_column", 999, ColumnRow(1, 1, "a", 1)), store::NotFoundError);
  txn->Rollback();
  EXPECT_TRUE(Rows(*Begin(), "ducklake_column").empty());
  EXPECT_THROW(txn->Commit(), store::InvalidArgumentError);  // finished
}

TEST_F(RowTransactionTest, AReadOnlyStoreServesReadsAndRefusesWrites) {
  auto reader = std::shared_ptr<store::KvStore>(
      store::OpenKvStore({.location = dir_.path("lake.moraine"), .read_only = true}));
  auto txn = BeginRowTransaction(reader);
  EXPECT_EQ(Rows(*txn, "ducklake_schema").size(), 1u);
  txn->Insert("ducklake_column", ColumnRow(1, 1, "a", 1));
  EXPECT_THROW(txn->Commit(), store::ReadOnlyError);
}

TEST(RowTransactionInterop, RowsTheVerbPathWroteAreServedAndViceVersa) {
  auto catalog = commit::Catalog::Open({.location = "memory://interop"});
  catalog->Commit([](commit::Transaction& txn) {
    txn.CreateTable("main", "t", {catalog::ColumnDef::Leaf("a", "int32")});
  });
  auto txn = BeginRowTransaction(
      std::shared_ptr<store::KvStore>(&catalog->store(), [](store::KvStore*) {}));
  auto columns = Rows(*txn, "ducklake_column");
  ASSERT_EQ(columns.size(), 1u);
  EXPECT_EQ(columns[0][5], Cell(std::string("a")));
  auto options = Rows(*txn, "ducklake_metadata");
  EXPECT_NE(std::find(options.begin(), options.end(),
                      Row{std::string("version"), std::string("1.0"), kNull, kNull}),
            options.end());

  // A DuckLake-style ADD COLUMN through rows is visible to the verb path.
  txn->Insert("ducklake_snapshot",
              {int64_t{2}, int64_t{1700000000000002}, int64_t{2}, int64_t{2}, int64_t{0}});
  txn->Insert("ducklake_column", ColumnRow(1, 2, "b", 2));
  txn->Commit();
  auto head = catalog->Head();
  EXPECT_EQ(head->snapshot_id(), 2);
  ASSERT_NE(head->Table(1), nullptr);
  EXPECT_NE(head->Table(1)->FindColumn(catalog::ColumnPath{"b"}), nullptr);
}

}  // namespace
}  // namespace moraine
