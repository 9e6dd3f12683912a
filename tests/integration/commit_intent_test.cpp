// Commit intents (commit/rows/commit_intent.h): a writer's data-only commit,
// handed to another writer that lands it with its own in one write. Intents
// replayed one over another (store/overlaid_snapshot.h) must leave the store
// exactly as the same commits landing one after another, each rebased by its
// own writer, leave it; an intent the rules refuse stages nothing; and the
// encoding refuses bytes that are not an intent.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commit/rows/commit_intent.h"
#include "commit/rows/row_transaction.h"
#include "store/error.h"
#include "store/overlaid_snapshot.h"
#include "support/staged_rows.h"

namespace moraine::commit {
namespace {

using test::kNull;

std::string InlinedTable(int64_t table_id) {
  return "ducklake_inlined_data_" + std::to_string(table_id) + "_1";
}

// Snapshot 1: tables 1, 2 and 3, one int32 column each, with stats and an
// inlined data table, as DuckLake leaves them after CREATE TABLE and a first
// inlined INSERT of the value 50.
std::shared_ptr<store::KvStore> NewLake() {
  auto store = test::NewStoreLikeDuckLake("memory://");
  auto txn = BeginRowTransaction(store);
  txn->Insert("ducklake_snapshot",
              {int64_t{1}, int64_t{1700000000000001}, int64_t{1}, int64_t{4}, int64_t{0}});
  txn->Insert("ducklake_snapshot_changes",
              {int64_t{1}, std::string("created_table:\"t\""), kNull, kNull, kNull});
  for (int64_t table = 1; table <= 3; ++table) {
    txn->Insert("ducklake_column", test::ColumnRow(table, 1, "v", 1));
    txn->Insert("ducklake_table_stats", {table, int64_t{1}, int64_t{1}, int64_t{0}});
    txn->Insert("ducklake_table_column_stats",
                {table, int64_t{1}, false, false, std::string("50"), std::string("50"), kNull});
    txn->CreateTable({InlinedTable(table),
                      {{"row_id", "BIGINT"},
                       {"begin_snapshot", "BIGINT"},
                       {"end_snapshot", "BIGINT"},
                       {"v", "INTEGER"}},
                      {}});
    txn->Insert(InlinedTable(table), {int64_t{0}, int64_t{1}, kNull, OpaqueValue{"50"}});
  }
  txn->Commit();
  return store;
}

// The one row of `table` whose first column is `id` (and second `second`, if given).
std::pair<RowHandle, Row> RowOf(RowTransaction& txn, const std::string& table, int64_t id,
                                std::optional<int64_t> second = std::nullopt) {
  std::vector<std::pair<RowHandle, Row>> found;
  txn.Scan(table, {{0, id, id}}, [&](RowHandle handle, const Row& row) {
    if (row[0] == Cell(id) && (!second || row[1] == Cell(*second))) found.emplace_back(handle, row);
  });
  EXPECT_EQ(found.size(), 1u) << table << " " << id;
  return found.at(0);
}

// Stages what DuckLake writes for `INSERT INTO t<table> VALUES (<value>)`
// with the row inlined: a snapshot, its changes, the stats moved, the row.
void StageInlinedInsert(RowTransaction& txn, int64_t table, int64_t value) {
  const SnapshotCounters base = *txn.LatestSnapshot();
  const int64_t snapshot = base.snapshot_id + 1;
  txn.Insert("ducklake_snapshot", {snapshot, int64_t{1700000000000000} + value, base.schema_version,
                                   base.next_catalog_id, base.next_file_id + 1});
  txn.Insert("ducklake_snapshot_changes",
             {snapshot, "inlined_insert:" + std::to_string(table), kNull, kNull, kNull});
  auto [stats_handle, stats] = RowOf(txn, "ducklake_table_stats", table);
  const int64_t row_id = std::get<int64_t>(stats[2]);
  stats[1] = std::get<int64_t>(stats[1]) + 1;
  stats[2] = row_id + 1;
  txn.Update("ducklake_table_stats", stats_handle, stats);
  auto [column_handle, column] = RowOf(txn, "ducklake_table_column_stats", table, 1);
  const auto bound = [&](size_t at, bool lower) {
    const int64_t held = std::stoll(std::get<std::string>(column[at]));
    column[at] = std::to_string(lower ? std::min(held, value) : std::max(held, value));
  };
  bound(4, true);
  bound(5, false);
  txn.Update("ducklake_table_column_stats", column_handle, column);
  txn.Insert(InlinedTable(table), {row_id, snapshot, kNull, OpaqueValue{std::to_string(value)}});
}

struct Insert {
  int64_t table;
  int64_t value;
};

// Begins one rebasable transaction per insert, all on the same head, and
// stages each.
std::vector<std::unique_ptr<RowTransaction>> StageAll(const std::shared_ptr<store::KvStore>& store,
                                                      const std::vector<Insert>& inserts) {
  std::vector<std::unique_ptr<RowTransaction>> txns;
  for (size_t i = 0; i < inserts.size(); ++i) {
    txns.push_back(BeginRowTransaction(store));
    txns.back()->AllowRebase();
  }
  for (size_t i = 0; i < inserts.size(); ++i) {
    StageInlinedInsert(*txns[i], inserts[i].table, inserts[i].value);
  }
  return txns;
}

// The same inserts, begun on one head, landed as a group: the first by its
// own writer, the others as intents replayed one over another and written
// in one batch on the head the first landed. Where each intent moved.
std::vector<RowTransaction::Rebase> LandAsGroup(const std::shared_ptr<store::KvStore>& store,
                                                const std::vector<Insert>& inserts) {
  auto txns = StageAll(store, inserts);
  std::vector<CommitIntent> intents;
  for (size_t i = 1; i < txns.size(); ++i) {
    auto intent = txns[i]->Intent();
    EXPECT_TRUE(intent.has_value()) << "insert " << i;
    // What travels between writers is the encoding.
    intents.push_back(DecodeCommitIntent(EncodeCommitIntent(*intent)));
  }
  txns[0]->Commit();
  const std::shared_ptr<const store::KvSnapshot> landed = store->GetSnapshot();
  store::WriteBatch group;
  std::vector<RowTransaction::Rebase> moves;
  for (const CommitIntent& intent : intents) {
    auto replayed =
        ReplayCommitIntent(std::make_unique<store::OverlaidSnapshot>(landed, group), intent);
    EXPECT_TRUE(replayed.has_value());
    if (!replayed) return moves;
    group.Append(replayed->batch);
    moves.push_back(replayed->moved);
  }
  store->Write(group);
  return moves;
}

TEST(CommitIntentTest, IntentsLandedAsAGroupLeaveTheStoreAsSerialRebasesDo) {
  // Table 1 is inserted into three times: the later inserts there take row
  // ids after the earlier and merge their stats.
  const std::vector<Insert> inserts = {{1, 7}, {2, 80}, {1, 90}, {3, 3}, {1, 20}};

  const auto serial = NewLake();
  std::vector<RowTransaction::Rebase> serial_moves;
  for (auto& txn : StageAll(serial, inserts)) {
    txn->Commit();
    if (txn->rebased()) serial_moves.push_back(*txn->rebased());
  }
  ASSERT_EQ(serial_moves.size(), inserts.size() - 1);

  const auto grouped = NewLake();
  const auto group_moves = LandAsGroup(grouped, inserts);
  ASSERT_EQ(group_moves.size(), serial_moves.size());
  for (size_t i = 0; i < serial_moves.size(); ++i) {
    EXPECT_EQ(group_moves[i].staged_snapshot, serial_moves[i].staged_snapshot);
    EXPECT_EQ(group_moves[i].landed_snapshot, serial_moves[i].landed_snapshot);
  }
  EXPECT_EQ(test::AllKeyValues(*grouped->GetSnapshot()),
            test::AllKeyValues(*serial->GetSnapshot()));
  EXPECT_EQ(BeginRowTransaction(grouped)->LatestSnapshot()->snapshot_id, 6);
  EXPECT_EQ(BeginRowTransaction(grouped)->LiveInlinedRowCount(InlinedTable(1), 6), 4);
}

TEST(CommitIntentTest, ACommitTheRebaseCannotMoveHasNoIntent) {
  const auto store = NewLake();
  auto txn = BeginRowTransaction(store);
  txn->AllowRebase();
  txn->Insert("ducklake_column", test::ColumnRow(2, 2, "w", 2));
  EXPECT_EQ(txn->Intent(), std::nullopt);

  // Writes made before AllowRebase are not kept for a replay.
  auto early = BeginRowTransaction(store);
  StageInlinedInsert(*early, 1, 5);
  early->AllowRebase();
  EXPECT_EQ(early->Intent(), std::nullopt);
}

TEST(CommitIntentTest, AnIntentTheHeadDoesNotAdmitStagesNothing) {
  const auto store = NewLake();
  auto writer = BeginRowTransaction(store);
  writer->AllowRebase();
  StageInlinedInsert(*writer, 1, 5);
  const auto intent = writer->Intent();
  ASSERT_TRUE(intent.has_value());

  // On the head it was staged on: nothing moved it, so no rebase applies.
  EXPECT_EQ(ReplayCommitIntent(store->GetSnapshot(), *intent), std::nullopt);

  // An ALTER of its table landed meanwhile (a new schema version).
  auto alter = BeginRowTransaction(store);
  const SnapshotCounters base = *alter->LatestSnapshot();
  alter->Insert("ducklake_snapshot", {int64_t{2}, int64_t{1700000000000002}, int64_t{2},
                                      base.next_catalog_id, base.next_file_id});
  alter->Insert("ducklake_snapshot_changes",
                {int64_t{2}, std::string("altered_table:1"), kNull, kNull, kNull});
  alter->Insert("ducklake_column", test::ColumnRow(1, 2, "w", 2));
  alter->Commit();
  const auto before = test::AllKeyValues(*store->GetSnapshot());
  EXPECT_EQ(ReplayCommitIntent(store->GetSnapshot(), *intent), std::nullopt);
  EXPECT_EQ(test::AllKeyValues(*store->GetSnapshot()), before);
}

TEST(CommitIntentTest, AnIntentOnATableAnotherCommitChangedIsRefused) {
  const auto store = NewLake();
  auto writer = BeginRowTransaction(store);
  writer->AllowRebase();
  // It ends the row of table 2 it read (an inlined DELETE).
  const SnapshotCounters base = *writer->LatestSnapshot();
  writer->Insert("ducklake_snapshot", {int64_t{2}, int64_t{1700000000000002}, base.schema_version,
                                       base.next_catalog_id, base.next_file_id + 1});
  writer->Insert("ducklake_snapshot_changes",
                 {int64_t{2}, std::string("inlined_delete:2"), kNull, kNull, kNull});
  auto [handle, row] = RowOf(*writer, InlinedTable(2), 0);
  row[2] = int64_t{2};
  writer->Update(InlinedTable(2), handle, row);
  const auto intent = writer->Intent();
  ASSERT_TRUE(intent.has_value());

  // Another writer ended the same row first.
  auto other = BeginRowTransaction(store);
  other->AllowRebase();
  const SnapshotCounters now = *other->LatestSnapshot();
  other->Insert("ducklake_snapshot", {int64_t{2}, int64_t{1700000000000003}, now.schema_version,
                                      now.next_catalog_id, now.next_file_id + 1});
  other->Insert("ducklake_snapshot_changes",
                {int64_t{2}, std::string("inlined_delete:2"), kNull, kNull, kNull});
  auto [other_handle, other_row] = RowOf(*other, InlinedTable(2), 0);
  other_row[2] = int64_t{2};
  other->Update(InlinedTable(2), other_handle, other_row);
  other->Commit();

  EXPECT_EQ(ReplayCommitIntent(store->GetSnapshot(), *intent), std::nullopt);
}

TEST(CommitIntentTest, EveryCellKindRoundTrips) {
  CommitIntent intent;
  intent.id = "4b0e3c1a-0000-4000-8000-000000000001";
  intent.shape = catalog::CatalogVersion::kV1_1;
  intent.base = {4, 2, 9, 12};
  intent.base_batches = 17;
  intent.writes.push_back(
      {RowWrite::Kind::kInsert,
       "ducklake_inlined_data_1_1",
       {},
       {int64_t{-3}, true, false, std::string(""), kNull, OpaqueValue{std::string("\0\xff", 2)}}});
  intent.writes.push_back({RowWrite::Kind::kUpdate,
                           "ducklake_table_stats",
                           {int64_t{1}, int64_t{2}},
                           {int64_t{1}, int64_t{3}}});
  intent.writes.push_back(
      {RowWrite::Kind::kDelete, "ducklake_inlined_data_1_1", {std::string("gone")}, {}});
  EXPECT_EQ(DecodeCommitIntent(EncodeCommitIntent(intent)), intent);

  const CommitOutcome outcome{intent.id, 5, 9};
  EXPECT_EQ(DecodeCommitOutcome(EncodeCommitOutcome(outcome)), outcome);
}

TEST(CommitIntentTest, BytesThatAreNoIntentAreRefused) {
  EXPECT_THROW(DecodeCommitIntent(""), store::CorruptionError);
  EXPECT_THROW(DecodeCommitIntent("\xff\xff\xff"), store::CorruptionError);
  EXPECT_THROW(DecodeCommitOutcome("\x08"), store::CorruptionError);

  CommitIntent intent;
  intent.id = "x";
  std::string bytes = EncodeCommitIntent(intent);
  ASSERT_EQ(bytes.substr(0, 2), std::string("\x08\x01", 2));  // field 1, format 1
  bytes[1] = '\x02';
  EXPECT_THROW(DecodeCommitIntent(bytes), store::UnsupportedVersionError);
}

}  // namespace
}  // namespace moraine::commit
