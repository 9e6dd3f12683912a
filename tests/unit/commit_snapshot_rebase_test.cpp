// commit/rows/snapshot_rebase.h: which commits that lost their race may be moved onto
// the head that beat them, and how their rows move.
#include "commit/rows/snapshot_rebase.h"

#include <gtest/gtest.h>

namespace moraine::commit {
namespace {

using catalog::CatalogVersion;
using Kind = RowWrite::Kind;

constexpr CatalogVersion kShape = CatalogVersion::kV1_0;

using Changes = std::map<int64_t, std::set<std::string>>;

TEST(SnapshotRebase, DataChangesNameTheirTables) {
  EXPECT_EQ(DataChangesByTable("inlined_insert:2"), (Changes{{2, {"inlined_insert"}}}));
  EXPECT_EQ(DataChangesByTable("inserted_into_table:3,deleted_from_table:5,inlined_delete:3"),
            (Changes{{3, {"inserted_into_table", "inlined_delete"}}, {5, {"deleted_from_table"}}}));
}

TEST(SnapshotRebase, AnyOtherChangeIsNotData) {
  for (const char* text :
       {"", "created_table:\"main\".\"t\"", "altered_table:2", "inlined_insert:2,dropped_table:4",
        "inline_flush:2", "merge_adjacent:2", "inlined_insert:", "inlined_insert:x",
        "inlined_insert:-1", "inlined_insert:2,"}) {
    EXPECT_EQ(DataChangesByTable(text), std::nullopt) << text;
  }
}

// A ducklake_snapshot row: snapshot_id, snapshot_time, schema_version,
// next_catalog_id, next_file_id.
Row SnapshotRow(int64_t id, int64_t schema_version, int64_t next_catalog_id, int64_t next_file_id) {
  return {id, int64_t{0}, schema_version, next_catalog_id, next_file_id};
}

// A ducklake_snapshot_changes row: snapshot_id, changes_made, author,
// commit_message, commit_extra_info.
Row ChangesRow(int64_t id, std::string changes) {
  return {id, std::move(changes), std::monostate{}, std::monostate{}, std::monostate{}};
}

// A ducklake_table_stats row: table_id, record_count, next_row_id, file_size_bytes.
Row StatsRow(int64_t table, int64_t records) { return {table, records, records, int64_t{0}}; }

// DuckLake's one-row inlined insert into table 2, staged on snapshot 7
// (schema version 3, next ids 4 and 10) as snapshot 8.
std::vector<RowWrite> InlinedInsert() {
  return {
      {Kind::kInsert, "ducklake_snapshot", {}, SnapshotRow(8, 3, 4, 11)},
      {Kind::kUpdate, "ducklake_table_stats", StatsRow(2, 5), StatsRow(2, 6)},
      {Kind::kInsert, "ducklake_inlined_data_2_3", {}, {int64_t{5}, int64_t{8}, std::monostate{}}},
      {Kind::kInsert, "ducklake_snapshot_changes", {}, ChangesRow(8, "inlined_insert:2")},
  };
}

const SnapshotCounters kBase{7, 3, 4, 10};

TEST(SnapshotRebase, AnInlinedInsertIsADataCommitOfItsTable) {
  const auto commit = DataCommitOf(InlinedInsert(), kBase, kShape);
  ASSERT_TRUE(commit);
  EXPECT_EQ(commit->snapshot_id, 8);
  EXPECT_EQ(commit->tables, (std::set<int64_t>{2}));
  EXPECT_EQ(commit->inserted_only, (std::set<int64_t>{2}));
}

TEST(SnapshotRebase, ACommitThatEndsARowOfATableIsNoInsertIntoIt) {
  auto ended = InlinedInsert();
  ended.push_back({Kind::kUpdate,
                   "ducklake_inlined_data_2_3",
                   {int64_t{1}, int64_t{2}, std::monostate{}},
                   {int64_t{1}, int64_t{2}, int64_t{8}}});
  ended[3].after = ChangesRow(8, "inlined_insert:2,inlined_delete:2");
  const auto commit = DataCommitOf(ended, kBase, kShape);
  ASSERT_TRUE(commit);
  EXPECT_TRUE(commit->inserted_only.empty());
}

TEST(SnapshotRebase, CommitsThatAreMoreThanInlinedDataAreNot) {
  auto file = InlinedInsert();
  file.push_back({Kind::kInsert, "ducklake_data_file", {}, {int64_t{10}, int64_t{2}}});
  EXPECT_EQ(DataCommitOf(file, kBase, kShape), std::nullopt) << "a data file names its file id";

  auto other_table = InlinedInsert();
  other_table[1] = {Kind::kUpdate, "ducklake_table_stats", StatsRow(9, 5), StatsRow(9, 6)};
  EXPECT_EQ(DataCommitOf(other_table, kBase, kShape), std::nullopt)
      << "stats of a table its changes do not name";

  auto schema = InlinedInsert();
  schema[0].after = SnapshotRow(8, 4, 4, 11);
  EXPECT_EQ(DataCommitOf(schema, kBase, kShape), std::nullopt) << "a new schema version";

  auto catalog_ids = InlinedInsert();
  catalog_ids[0].after = SnapshotRow(8, 3, 5, 11);
  EXPECT_EQ(DataCommitOf(catalog_ids, kBase, kShape), std::nullopt) << "a new catalog id";

  auto not_next = InlinedInsert();
  not_next[0].after = SnapshotRow(9, 3, 4, 11);
  EXPECT_EQ(DataCommitOf(not_next, kBase, kShape), std::nullopt) << "not the base's next snapshot";

  auto altered = InlinedInsert();
  altered[3].after = ChangesRow(8, "altered_table:2");
  EXPECT_EQ(DataCommitOf(altered, kBase, kShape), std::nullopt);

  auto no_snapshot = InlinedInsert();
  no_snapshot.erase(no_snapshot.begin());
  EXPECT_EQ(DataCommitOf(no_snapshot, kBase, kShape), std::nullopt);

  auto snapshot_update = InlinedInsert();
  snapshot_update[0].kind = Kind::kUpdate;
  snapshot_update[0].before = SnapshotRow(8, 3, 4, 10);
  EXPECT_EQ(DataCommitOf(snapshot_update, kBase, kShape), std::nullopt);
}

TEST(SnapshotRebase, AHeadOfDataCommitsOnOtherTablesAdmitsTheRebase) {
  const DataCommit commit{8, {2}};
  // Two commits, two batches, each inlined data of another table; they moved
  // next_file_id, as every data commit does.
  const SnapshotCounters head{9, 3, 4, 12};
  EXPECT_TRUE(
      HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:5", "inlined_delete:6"}));
  EXPECT_EQ(MoveOnto(commit, kBase, head).to, 10);
  EXPECT_EQ(MoveOnto(commit, kBase, head).file_ids, 2);
}

TEST(SnapshotRebase, InsertsIntoATableTheCommitOnlyInsertedIntoAdmitTheRebase) {
  const DataCommit commit{8, {2, 4}, {2}};
  const SnapshotCounters head{9, 3, 4, 12};
  EXPECT_EQ(HeadAdmitsRebase(commit, kBase, 20, head, 22,
                             {"inlined_insert:2", "inserted_into_table:2,inlined_insert:5"}),
            (std::set<int64_t>{2}));
  EXPECT_EQ(HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:5", "inlined_insert:6"}),
            (std::set<int64_t>{}));
  EXPECT_EQ(HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:2", "inlined_delete:2"}),
            std::nullopt)
      << "a delete from it";
  EXPECT_EQ(HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:4", "inlined_insert:5"}),
            std::nullopt)
      << "an insert into a table the commit did more to";
}

TEST(SnapshotRebase, AnyOtherHeadDoesNot) {
  const DataCommit commit{8, {2}};
  const SnapshotCounters head{9, 3, 4, 12};
  const std::vector<std::string> changes = {"inlined_insert:5", "inlined_insert:6"};
  EXPECT_FALSE(
      HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:5", "inlined_insert:2"}))
      << "a commit of the same table";
  EXPECT_FALSE(HeadAdmitsRebase(commit, kBase, 20, head, 23, changes))
      << "a batch without a snapshot";
  EXPECT_FALSE(HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:5"}))
      << "a snapshot without changes";
  EXPECT_FALSE(
      HeadAdmitsRebase(commit, kBase, 20, head, 22, {"inlined_insert:5", "altered_table:6"}));
  EXPECT_FALSE(HeadAdmitsRebase(commit, kBase, 20, {9, 4, 4, 12}, 22, changes)) << "schema version";
  EXPECT_FALSE(HeadAdmitsRebase(commit, kBase, 20, {9, 3, 5, 12}, 22, changes)) << "catalog ids";
  EXPECT_FALSE(HeadAdmitsRebase(commit, kBase, 20, kBase, 21, {})) << "no new snapshot";
}

TEST(SnapshotRebase, RowsMoveTheirSnapshotCellsAndTheSnapshotItsFileCounter) {
  const SnapshotMove move{8, 10, 2};
  EXPECT_EQ(WithSnapshotMoved("ducklake_snapshot", SnapshotRow(8, 3, 4, 11), move, kShape),
            SnapshotRow(10, 3, 4, 13));
  EXPECT_EQ(WithSnapshotMoved("ducklake_snapshot_changes", ChangesRow(8, "inlined_insert:2"), move,
                              kShape),
            ChangesRow(10, "inlined_insert:2"));
  // row_id 8 is not a snapshot cell; begin_snapshot is; end_snapshot 3 is another snapshot.
  const Row inlined = {int64_t{8}, int64_t{8}, int64_t{3}, catalog::OpaqueValue{"8"}};
  EXPECT_EQ(WithSnapshotMoved("ducklake_inlined_data_2_3", inlined, move, kShape),
            (Row{int64_t{8}, int64_t{10}, int64_t{3}, catalog::OpaqueValue{"8"}}));
  const Row ended = {int64_t{4}, int64_t{2}, int64_t{8}};
  EXPECT_EQ(WithSnapshotMoved("ducklake_inlined_data_2_3", ended, move, kShape),
            (Row{int64_t{4}, int64_t{2}, int64_t{10}}));
  EXPECT_EQ(WithSnapshotMoved("ducklake_inlined_delete_2", {int64_t{1}, int64_t{8}, int64_t{8}},
                              move, kShape),
            (Row{int64_t{1}, int64_t{8}, int64_t{10}}));
  EXPECT_EQ(WithSnapshotMoved("ducklake_table_stats", StatsRow(8, 8), move, kShape),
            StatsRow(8, 8));
  // Another snapshot's row keeps its counters.
  EXPECT_EQ(WithSnapshotMoved("ducklake_snapshot", SnapshotRow(7, 3, 4, 10), move, kShape),
            SnapshotRow(7, 3, 4, 10));
}

TEST(SnapshotRebase, InlinedRowsOfASharedTableTakeRowIdsAfterTheHeads) {
  const SnapshotMove move{8, 10, 2, {{2, 3}}};
  const Row inlined = {int64_t{5}, int64_t{8}, std::monostate{}, catalog::OpaqueValue{"7"}};
  EXPECT_EQ(WithSnapshotMoved("ducklake_inlined_data_2_3", inlined, move, kShape),
            (Row{int64_t{8}, int64_t{10}, std::monostate{}, catalog::OpaqueValue{"7"}}));
  // Another table's rows keep theirs.
  EXPECT_EQ(WithSnapshotMoved("ducklake_inlined_data_4_3", inlined, move, kShape),
            (Row{int64_t{5}, int64_t{10}, std::monostate{}, catalog::OpaqueValue{"7"}}));
}

// A ducklake_table_column_stats row: table_id, column_id, contains_null,
// contains_nan, min_value, max_value, extra_stats.
Row ColumnStats(Cell contains_null, Cell min, Cell max) {
  return {int64_t{2}, int64_t{1}, contains_null, std::monostate{}, min, max, std::monostate{}};
}

TEST(SnapshotRebase, TableStatsAreTheHeadsPlusWhatTheCommitAdded) {
  const Row before = {int64_t{2}, int64_t{5}, int64_t{5}, int64_t{0}};
  const Row after = {int64_t{2}, int64_t{7}, int64_t{7}, int64_t{0}};
  const Row head = {int64_t{2}, int64_t{6}, int64_t{9}, int64_t{100}};
  EXPECT_EQ(StatsOnHead("ducklake_table_stats", before, after, head, "", kShape),
            (Row{int64_t{2}, int64_t{8}, int64_t{11}, int64_t{100}}));
}

TEST(SnapshotRebase, ColumnStatsMergeWithTheHeadsByTheColumnsType) {
  const Row before = ColumnStats(false, std::string("1"), std::string("5"));
  // The commit added 7 (the max), the head 10 and -2 (both ends) and a NULL.
  const Row after = ColumnStats(false, std::string("1"), std::string("7"));
  const Row head = ColumnStats(true, std::string("-2"), std::string("10"));
  EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, after, head, "int32", kShape),
            ColumnStats(true, std::string("-2"), std::string("10")));
  // Compared as text, "7" > "10": as integers the head's max stays.
  const Row lower = ColumnStats(true, std::string("-9"), std::string("70"));
  EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, lower, head, "int64", kShape),
            ColumnStats(true, std::string("-9"), std::string("70")));
  EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, after, head, "varchar", kShape),
            ColumnStats(true, std::string("-2"), std::string("7")));
}

TEST(SnapshotRebase, ColumnStatsThatCannotBeMergedHereRefuseTheRebase) {
  const Row before = ColumnStats(false, std::string("1"), std::string("5"));
  const Row after = ColumnStats(false, std::string("1"), std::string("7"));
  const Row head = ColumnStats(false, std::string("1"), std::string("9"));
  for (const char* type : {"decimal(9,2)", "timestamp", "struct", ""}) {
    EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, after, head, type, kShape),
              std::nullopt)
        << type;
  }
  const Row unknown = ColumnStats(false, std::monostate{}, std::string("9"));
  EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, after, unknown, "int32", kShape),
            std::nullopt)
      << "a min on one side only";
  Row extra = head;
  extra[6] = std::string("{\"x\":1}");
  EXPECT_EQ(StatsOnHead("ducklake_table_column_stats", before, after, extra, "int32", kShape),
            std::nullopt)
      << "extra_stats that differ";
}

TEST(SnapshotRebase, StatValuesCompareAsTheirType) {
  EXPECT_EQ(CompareStatValues("int32", "9", "10"), -1);
  EXPECT_EQ(CompareStatValues("uint64", "18446744073709551615", "1"), 1);
  EXPECT_EQ(CompareStatValues("float64", "-0.5", "1e-3"), -1);
  EXPECT_EQ(CompareStatValues("float64", "nan", "1"), std::nullopt);
  EXPECT_EQ(CompareStatValues("varchar", "b", "ab"), 1);
  EXPECT_EQ(CompareStatValues("boolean", "false", "true"), -1);
  EXPECT_EQ(CompareStatValues("date", "2024-01-31", "2024-02-01"), -1);
  EXPECT_EQ(CompareStatValues("date", "-2024-01-31", "2024-02-01"), std::nullopt);
  EXPECT_EQ(CompareStatValues("int32", "9x", "10"), std::nullopt);
}

}  // namespace
}  // namespace moraine::commit
