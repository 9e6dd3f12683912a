// The store tools (inspect, verify, schema --at, lineage, log) on a lake that
// real DuckLake built on moraine: renames, a type promotion, defaults, nested
// fields, drops, inlined and Parquet data, compaction and expiry. Each tool's
// output is checked against what DuckLake itself reports at every snapshot
// (DESCRIBE ... AT VERSION, its catalog rows, ducklake_snapshots()), through
// the library, the SQL functions and the host executable alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "store/key.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/moraine_lake_test.h"
#include "support/run_process.h"
#include "tools/column_lineage.h"
#include "tools/snapshot_log.h"
#include "tools/store_census.h"
#include "tools/table_schema.h"
#include "tools/tool_store.h"

namespace moraine {
namespace {

using test::Rows;

std::string Text(const tools::ToolCell& cell) {
  if (const auto* number = std::get_if<int64_t>(&cell)) return std::to_string(*number);
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* flag = std::get_if<bool>(&cell)) return *flag ? "true" : "false";
  return "NULL";
}

size_t ColumnIndex(const tools::ToolTable& table, const std::string& name) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].name == name) return i;
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

// The named columns of every row, as text.
Rows Project(const tools::ToolTable& table, const std::vector<std::string>& names) {
  Rows rows;
  for (const auto& row : table.rows) {
    std::vector<std::string> projected;
    for (const auto& name : names) projected.push_back(Text(row[ColumnIndex(table, name)]));
    rows.push_back(std::move(projected));
  }
  return rows;
}

tools::LineageRequest Column(std::string table, std::vector<std::string> path) {
  tools::LineageRequest request;
  request.table = std::move(table);
  request.column_path = std::move(path);
  return request;
}

class StoreTools : public test::MoraineLakeTest {
 protected:
  // Builds the lake once per test; `snapshots_` maps each snapshot to
  // whether table t existed then.
  void Build(test::DuckLakeSession& session) {
    session.Run(AttachLake());
    const std::vector<std::string> script = {
        "CREATE TABLE lake.t (id INTEGER, name VARCHAR, s STRUCT(x INTEGER, y VARCHAR))",
        "INSERT INTO lake.t VALUES (1, 'a', {'x': 1, 'y': 'q'})",  // inlined
        "INSERT INTO lake.t SELECT i, 'n' || i, {'x': i, 'y': 'p'} FROM range(50) r(i)",
        "INSERT INTO lake.t SELECT i, 'm' || i, {'x': i, 'y': 'r'} FROM range(50) r(i)",
        "ALTER TABLE lake.t RENAME COLUMN name TO label",
        "ALTER TABLE lake.t ALTER COLUMN id TYPE BIGINT",
        "ALTER TABLE lake.t ADD COLUMN score DOUBLE DEFAULT 1.5",
        "ALTER TABLE lake.t ADD COLUMN s.z INTEGER",
        "ALTER TABLE lake.t DROP COLUMN score",
        "INSERT INTO lake.t VALUES (5, 'b', {'x': 2, 'y': 'w', 'z': 3})",
        "CREATE TABLE lake.gone (a INTEGER)",
        "INSERT INTO lake.gone VALUES (1)",
        "DROP TABLE lake.gone",
        "CALL ducklake_merge_adjacent_files('lake')",
        "CALL ducklake_expire_snapshots('lake', versions => [2])",
    };
    for (const auto& statement : script) session.Run(statement);
    table_id_ = session.Query(
        "SELECT table_id FROM __ducklake_metadata_lake.ducklake_table WHERE table_name = 't'")[0]
                                                                                              [0];
  }

  std::vector<int64_t> Snapshots(test::DuckLakeSession& session) {
    std::vector<int64_t> ids;
    for (const auto& row : session.Query("SELECT snapshot_id FROM ducklake_snapshots('lake')")) {
      ids.push_back(std::stoll(row[0]));
    }
    return ids;
  }

  std::string Moraine(const std::string& arguments) {
    return std::string(MORAINE_EXECUTABLE) + " " + arguments + " 2>&1";
  }

  std::string table_id_;
};

TEST_F(StoreTools, SchemaAtEverySnapshotIsWhatDuckLakeReconstructs) {
  test::DuckLakeSession session;
  Build(session);
  auto store = tools::OpenStoreReadOnly(Store());
  auto view = store->GetSnapshot();
  int checked = 0;
  for (int64_t at : Snapshots(session)) {
    const std::string version = " AT (VERSION => " + std::to_string(at) + ")";
    auto exists = session.connection().Query("SELECT 1 FROM lake.t" + version + " LIMIT 0");
    if (exists->HasError()) {
      EXPECT_THROW(tools::SchemaAt(*view, "t", at), store::NotFoundError) << "snapshot " << at;
      continue;
    }
    const tools::ToolTable schema = tools::SchemaAt(*view, "t", at);
    // The top level, in order, is what DuckDB sees through DuckLake.
    Rows described;
    for (const auto& row : session.Query("DESCRIBE SELECT * FROM lake.t" + version)) {
      described.push_back({row[0]});
    }
    Rows top_level;
    for (const auto& row : Project(schema, {"path", "parent_field_id"})) {
      if (row[1] == "NULL") top_level.push_back({row[0]});
    }
    EXPECT_EQ(top_level, described) << "snapshot " << at;
    // Every field, nested ones included, is DuckLake's column row live at `at`.
    Rows fields = Project(schema, {"field_id", "path", "type", "default_value", "parent_field_id"});
    for (auto& row : fields) row[1] = row[1].substr(row[1].rfind('.') + 1);
    std::sort(fields.begin(), fields.end(),
              [](const auto& a, const auto& b) { return std::stoll(a[0]) < std::stoll(b[0]); });
    const std::string s = std::to_string(at);
    EXPECT_EQ(fields, session.Query("SELECT column_id, column_name, column_type, default_value, "
                                    "parent_column FROM __ducklake_metadata_lake.ducklake_column "
                                    "WHERE table_id = " +
                                    table_id_ + " AND begin_snapshot <= " + s +
                                    " AND (end_snapshot IS NULL OR end_snapshot > " + s +
                                    ") ORDER BY column_id"))
        << "snapshot " << at;
    // The SQL function serves the same table.
    EXPECT_EQ(
        session.Query("SELECT field_id, path FROM moraine_schema('lake', 't', at => " + s + ")"),
        Project(schema, {"field_id", "path"}));
    ++checked;
  }
  EXPECT_GE(checked, 10);
  // A snapshot beyond the head, and one expiry removed, are clear errors.
  EXPECT_THROW(tools::SchemaAt(*view, "t", 999), store::NotFoundError);
  EXPECT_THROW(tools::SchemaAt(*view, "t", 2), store::NotFoundError);
}

TEST_F(StoreTools, LineageIsEveryVersionDuckLakeKeptAndTheFilesThatCarryTheField) {
  test::DuckLakeSession session;
  Build(session);
  const std::string versions_of =
      "SELECT column_id, column_name, column_type, begin_snapshot, end_snapshot FROM "
      "__ducklake_metadata_lake.ducklake_column WHERE table_id = " +
      table_id_ + " AND column_id = ";
  const std::vector<std::string> columns = {"field_id", "name", "type", "begin_snapshot",
                                            "end_snapshot"};
  auto store = tools::OpenStoreReadOnly(Store());
  auto view = store->GetSnapshot();

  // Renamed: found by its old name and its new one; the rename ended version 1.
  const auto label = tools::TraceColumn(*view, Column("t", {"name"}));
  EXPECT_EQ(Project(label.versions, columns),
            session.Query(versions_of + "2 ORDER BY begin_snapshot"));
  ASSERT_EQ(label.versions.rows.size(), 2u);
  EXPECT_EQ(Text(label.versions.rows[0][ColumnIndex(label.versions, "ended_by")]),
            "renamed to label");
  // Promoted int32 -> int64.
  const auto id = tools::TraceColumn(*view, Column("t", {"id"}));
  EXPECT_EQ(Project(id.versions, columns),
            session.Query(versions_of + "1 ORDER BY begin_snapshot"));
  EXPECT_EQ(Text(id.versions.rows[0][ColumnIndex(id.versions, "ended_by")]), "type int32 -> int64");
  // Dropped, with its default.
  const auto score = tools::TraceColumn(*view, Column("t", {"score"}));
  ASSERT_EQ(score.versions.rows.size(), 1u);
  EXPECT_EQ(Text(score.versions.rows[0][ColumnIndex(score.versions, "ended_by")]), "dropped");
  EXPECT_EQ(Text(score.versions.rows[0][ColumnIndex(score.versions, "default_value")]), "1.5");

  // Every live Parquet file of t carries id; none written before s.z existed carries s.z.
  const Rows live_files = session.Query(
      "SELECT data_file_id FROM __ducklake_metadata_lake.ducklake_data_file WHERE table_id = " +
      table_id_ + " AND end_snapshot IS NULL ORDER BY data_file_id");
  ASSERT_FALSE(live_files.empty());
  Rows id_files;
  for (const auto& row : Project(id.files, {"data_file_id", "end_snapshot"})) {
    if (row[1] == "NULL") id_files.push_back({row[0]});
  }
  EXPECT_EQ(id_files, live_files);
  const auto z = tools::TraceColumn(*view, Column("t", {"s", "z"}));
  ASSERT_EQ(z.versions.rows.size(), 1u);
  EXPECT_EQ(Text(z.versions.rows[0][ColumnIndex(z.versions, "parent_field_id")]), "3");
  // The struct itself is carried wherever its fields are.
  const auto s = tools::TraceColumn(*view, Column("t", {"s"}));
  EXPECT_EQ(s.files.rows.size(), id.files.rows.size());

  // The SQL function on the attached lake.
  EXPECT_EQ(session.Query("SELECT field_id, name, type, begin_snapshot, end_snapshot FROM "
                          "moraine_column_lineage('lake', 't', 'label')"),
            session.Query(versions_of + "2 ORDER BY begin_snapshot"));
  // A column or table that never existed is a clear error.
  EXPECT_THROW(tools::TraceColumn(*view, Column("t", {"nope"})), store::NotFoundError);
  EXPECT_THROW(tools::TraceColumn(*view, Column("nope", {"id"})), store::NotFoundError);
  EXPECT_NE(session.Error("SELECT * FROM moraine_column_lineage('lake', 't', 'nope')")
                .find("never had a column nope"),
            std::string::npos);
  // A dropped table's columns are still traced, ended by the drop.
  const auto gone = tools::TraceColumn(*view, Column("gone", {"a"}));
  ASSERT_EQ(gone.versions.rows.size(), 1u);
  EXPECT_EQ(Text(gone.versions.rows[0][ColumnIndex(gone.versions, "ended_by")]), "table dropped");
}

TEST_F(StoreTools, LogIsDuckLakesSnapshotListNewestFirst) {
  test::DuckLakeSession session;
  Build(session);
  auto store = tools::OpenStoreReadOnly(Store());
  const tools::ToolTable log = tools::SnapshotLog(*store->GetSnapshot());
  EXPECT_EQ(Project(log, {"snapshot_id", "schema_version"}),
            session.Query("SELECT snapshot_id, schema_version FROM ducklake_snapshots('lake') "
                          "ORDER BY snapshot_id DESC"));
  EXPECT_EQ(session.Query("SELECT snapshot_id, changes FROM moraine_log('lake') LIMIT 1"),
            (Rows{{std::to_string(session.Head()), Text(log.rows[0][3])}}));
}

TEST_F(StoreTools, TheHostPrintsEachToolAndVerifiesTheLakeClean) {
  {
    test::DuckLakeSession session;
    Build(session);
    // Verify reads beside a live writer: the session still holds the store.
    const auto verified = test::RunCommand(Moraine("verify " + Store()));
    EXPECT_EQ(verified.exit_code, 0) << verified.output;
    EXPECT_NE(verified.output.find(" 0 violations"), std::string::npos) << verified.output;
  }
  const auto inspect = test::RunCommand(Moraine("inspect " + Store()));
  EXPECT_EQ(inspect.exit_code, 0) << inspect.output;
  for (const char* expected : {"store_format", "head_snapshot", "current", "history", "column",
                               "rocksdb.estimate-num-keys"}) {
    EXPECT_NE(inspect.output.find(expected), std::string::npos) << expected << "\n"
                                                                << inspect.output;
  }
  const auto json = test::RunCommand(Moraine("inspect --json " + Store()));
  EXPECT_NE(json.output.find(
                "{\"section\":\"keys by kind\",\"subspace\":\"history\",\"kind\":\"column\""),
            std::string::npos)
      << json.output;
  const auto schema = test::RunCommand(Moraine("schema --csv " + Store() + " t --at 3"));
  EXPECT_EQ(schema.exit_code, 0) << schema.output;
  EXPECT_EQ(schema.output.substr(0, schema.output.find('\n')),
            "field_id,name,path,type,nullable,default_value,initial_default,parent_field_id,"
            "since_snapshot");
  EXPECT_NE(schema.output.find("2,name,name,varchar"), std::string::npos) << schema.output;
  const auto lineage = test::RunCommand(Moraine("lineage --csv " + Store() + " t.label"));
  EXPECT_EQ(lineage.exit_code, 0) << lineage.output;
  EXPECT_NE(lineage.output.find("renamed to label"), std::string::npos) << lineage.output;
  const auto by_id = test::RunCommand(Moraine("lineage --csv " + Store() + " t --field-id 2"));
  EXPECT_EQ(by_id.output, lineage.output);
  const auto log = test::RunCommand(Moraine("log " + Store()));
  EXPECT_EQ(log.exit_code, 0) << log.output;
  EXPECT_NE(log.output.find("dropped_table"), std::string::npos) << log.output;

  // Clear errors: beyond the head, a column that never was, not a store.
  const auto beyond = test::RunCommand(Moraine("schema " + Store() + " t --at 999"));
  EXPECT_EQ(beyond.exit_code, 1);
  EXPECT_NE(beyond.output.find("snapshot 999 does not exist"), std::string::npos) << beyond.output;
  const auto never = test::RunCommand(Moraine("lineage " + Store() + " t.never"));
  EXPECT_EQ(never.exit_code, 1);
  EXPECT_NE(never.output.find("never had a column never"), std::string::npos) << never.output;
  const auto not_store = test::RunCommand(Moraine("verify " + dir_.path("files")));
  EXPECT_EQ(not_store.exit_code, 1);
  EXPECT_NE(not_store.output.find("is not a moraine store"), std::string::npos) << not_store.output;
  const auto absent = test::RunCommand(Moraine("verify " + dir_.path("absent")));
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_NE(absent.output.find("no moraine store"), std::string::npos) << absent.output;
}

TEST_F(StoreTools, TheHostReportsADamagedValueAndChangesNothing) {
  verify_store_at_teardown_ = false;  // damaged on purpose
  {
    test::DuckLakeSession session;
    Build(session);
  }
  std::string key;
  {
    auto kv = store::OpenKvStore({.location = Store(), .create_if_missing = false});
    auto view = kv->GetSnapshot();
    auto it = view->Scan(store::PrefixRange(store::Subspace::kHistory, store::Kind::kColumn));
    ASSERT_TRUE(it->Valid());
    key = std::string(it->key());
    std::string value(it->value());
    value[value.size() / 2] = static_cast<char>(value[value.size() / 2] ^ 0x40);
    store::WriteBatch batch;
    batch.Put(key, value);
    kv->Write(batch);
  }
  const std::string before =
      *store::GetLatest(*store::OpenKvStore({.location = Store(), .read_only = true}), key);
  const auto verified = test::RunCommand(Moraine("verify " + Store()));
  EXPECT_EQ(verified.exit_code, 2) << verified.output;
  EXPECT_NE(verified.output.find("value " + store::Key::Decode(key).ToString() + ": "),
            std::string::npos)
      << verified.output;
  EXPECT_NE(verified.output.find(" 1 violation\n"), std::string::npos) << verified.output;
  EXPECT_EQ(*store::GetLatest(*store::OpenKvStore({.location = Store(), .read_only = true}), key),
            before);
}

// Expiring every snapshot but the head leaves ended versions no snapshot sees
// (a renamed table's old name, a dropped column of a live table, an ended
// partition): DuckLake keeps them, so they are no violation; the teardown
// verifies the store. The dropped field's id is not reused afterwards.
TEST_F(StoreTools, AStoreExpiredToItsHeadVerifiesAndKeepsFieldIdsUnique) {
  test::DuckLakeSession session;
  session.Run(AttachLake(", DATA_INLINING_ROW_LIMIT 0"));
  for (const char* statement : {
           "CREATE SCHEMA lake.s2",
           "CREATE TABLE lake.s2.g (a INTEGER)",
           "CREATE VIEW lake.v AS SELECT 1 AS x",
           "CREATE TABLE lake.t (a INTEGER, b INTEGER)",
           "ALTER TABLE lake.t SET PARTITIONED BY (a)",
           "INSERT INTO lake.t VALUES (1, 2)",
           "INSERT INTO lake.t VALUES (2, 2)",
           "DELETE FROM lake.t WHERE a = 1",
           "ALTER TABLE lake.t RESET PARTITIONED BY",
           "ALTER TABLE lake.t DROP COLUMN b",
           "ALTER TABLE lake.t RENAME TO t2",
           "DROP VIEW lake.v",
           "DROP TABLE lake.s2.g",
           "DROP SCHEMA lake.s2",
           "CALL ducklake_merge_adjacent_files('lake')",
           "CALL ducklake_expire_snapshots('lake', older_than => now())",
           "ALTER TABLE lake.t2 ADD COLUMN c INTEGER",
       }) {
    session.Run(statement);
  }
  EXPECT_EQ(session.Query("SELECT count(*) FROM ducklake_snapshots('lake')"), (Rows{{"2"}}));
  EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('lake')"), (Rows{{"0"}}));
  EXPECT_EQ(session.Query("SELECT field_id, name, ended_by FROM "
                          "moraine_column_lineage('lake', 't2', 'b')"),
            (Rows{{"2", "b", "dropped"}}));
  EXPECT_EQ(session.Query("SELECT field_id FROM moraine_column_lineage('lake', 't2', 'c')"),
            (Rows{{"3"}}));
}

TEST_F(StoreTools, AnUnregisteredInlinedTableIsReportedThroughSql) {
  verify_store_at_teardown_ = false;  // damaged on purpose
  {
    test::DuckLakeSession session;
    Build(session);
    EXPECT_EQ(session.Query("SELECT count(*) FROM moraine_verify('lake')"), (Rows{{"0"}}));
    EXPECT_EQ(session.Query("SELECT keys > 0 FROM moraine_inspect('lake') WHERE subspace = "
                            "'history' AND kind = 'column'"),
              (Rows{{"true"}}));
  }
  std::string key;
  {
    auto kv = store::OpenKvStore({.location = Store(), .create_if_missing = false});
    auto view = kv->GetSnapshot();
    auto it =
        view->Scan(store::PrefixRange(store::Subspace::kCurrent, store::Kind::kInlinedDataTable));
    ASSERT_TRUE(it->Valid());
    key = std::string(it->key());
    store::WriteBatch batch;
    batch.Delete(key);
    kv->Write(batch);
  }
  test::DuckLakeSession session;
  session.Run(AttachLake(", READ_ONLY"));
  const Rows violations = session.Query("SELECT invariant, key FROM moraine_verify('lake')");
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0][0], "inlined-unregistered");
  const store::Key registration = store::Key::Decode(key);
  EXPECT_EQ(violations[0][1],
            store::Key(store::Subspace::kInlineData, store::Kind::kInlinedTableShape,
                       {registration.component(0), registration.component(1)})
                .ToString());
}

}  // namespace
}  // namespace moraine
