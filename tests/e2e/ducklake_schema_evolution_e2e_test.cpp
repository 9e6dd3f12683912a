// Every ALTER form of DuckLake's schema-evolution docs (seeds/003) against a
// moraine lake, checked three ways after every statement:
//   - the current schema and data (old Parquet files and inlined rows read
//     back through the new schema: a missing field reads as its initial
//     default, a dropped field is ignored, a promoted field is cast);
//   - the same statements against DuckLake's stock DuckDB-file catalog, which
//     must show the same user-visible results (and the same ducklake_column
//     rows): moraine must behave exactly like DuckLake's own catalog;
//   - time travel to every snapshot the scenario produced, also after
//     DETACH/ATTACH and after a restart (a new Host).
// Each scenario runs with data inlining on (DuckLake's default: small inserts
// land as catalog rows) and off (DATA_INLINING_ROW_LIMIT 0: every insert
// writes Parquet). Real DuckDB, the pinned DuckLake, real RocksDB.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/ducklake_session.h"
#include "support/lake_store_backend.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::Rows;
using Session = test::DuckLakeSession;

// The moraine lake is attached as `lake`, the stock one as `stock`.
constexpr const char* kMoraine = "lake";
constexpr const char* kStock = "stock";

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// `$L` in a statement names the lake, `$M` its hidden metadata catalog.
std::string On(const std::string& sql, const std::string& lake) {
  return ReplaceAll(ReplaceAll(sql, "$M", "__ducklake_metadata_" + lake), "$L", lake);
}

class SchemaEvolution : public ::testing::TestWithParam<bool> {
 protected:
  // What one snapshot of the scenario looked like when it was the head.
  struct Recorded {
    std::string statement;
    int64_t snapshot = 0;
    std::string table;  // the table's name at that snapshot
    Rows schema;
    Rows data;
  };

  void SetUp() override {
    if (auto why = test::LakeStoreUnavailable()) GTEST_SKIP() << *why;
    store_ = test::NewLakeStore(dir_);
    Open();
  }
  void TearDown() override {
    session_.reset();
    if (!store_.empty()) test::ExpectStoreVerifies(store_);
  }

  bool inlining() const { return GetParam(); }

  std::string Attach(const std::string& lake) const {
    const std::string options = std::string(" (DATA_PATH '") + dir_.path(lake + "-files") + "/'" +
                                (inlining() ? "" : ", DATA_INLINING_ROW_LIMIT 0") + ")";
    const std::string target = lake == kMoraine ? "moraine:" + store_ : dir_.path("stock.ducklake");
    return "ATTACH 'ducklake:" + target + "' AS " + lake + options;
  }

  void Open() {
    session_ = std::make_unique<Session>();
    // Upstream (both catalogs alike): once a column has been promoted, its
    // ducklake_table_column_stats row can go NULL and then hold only the
    // range of the next insert (seen here: v promoted int32 -> int64 over
    // rows -5 and 100, later min = max = 4). DuckDB trusts that range: the
    // compressed materialization of an ORDER BY then reads -5 back as 251,
    // and statistics propagation can fold filters. The reads under test are
    // DuckLake's field-id remapping, not DuckDB's use of table statistics.
    session_->Run("SET disabled_optimizers = 'compressed_materialization,statistics_propagation'");
    session_->Run(Attach(kMoraine));
    session_->Run(Attach(kStock));
  }

  // Runs `sql` on both lakes; both must accept it.
  void Both(const std::string& sql) {
    session_->Run(On(sql, kMoraine));
    session_->Run(On(sql, kStock));
  }

  // Runs a query on both lakes; the results must be equal. Returns moraine's.
  Rows Agree(const std::string& sql) {
    Rows moraine = session_->Query(On(sql, kMoraine));
    Rows stock = session_->Query(On(sql, kStock));
    EXPECT_EQ(moraine, stock) << "moraine and the stock catalog disagree on: " << sql;
    return moraine;
  }

  // Every ducklake_column row, as DuckLake wrote it.
  static constexpr const char* kColumnRows =
      "SELECT table_id, column_id, begin_snapshot, end_snapshot, column_order, column_name, "
      "column_type, initial_default, default_value, nulls_allowed, parent_column, "
      "default_value_type FROM $M.ducklake_column ORDER BY ALL";

  // Runs a statement DuckLake must refuse, on both lakes: the same error, and
  // no new snapshot and no changed ducklake_column row. Returns the error.
  std::string Refused(const std::string& sql) {
    const Rows snapshots = Agree("SELECT count(*), max(snapshot_id) FROM $M.ducklake_snapshot");
    const Rows columns = Agree(kColumnRows);
    const std::string moraine = session_->Error(On(sql, kMoraine));
    const std::string stock = session_->Error(On(sql, kStock));
    // DuckDB's "LINE n: ..." excerpt is cut at a width, so it shifts with the
    // lake's name; compare the message above it.
    const auto message = [](const std::string& error) {
      return error.substr(0, error.find("\nLINE "));
    };
    EXPECT_EQ(message(moraine), message(ReplaceAll(stock, kStock, kMoraine))) << sql;
    EXPECT_EQ(Agree("SELECT count(*), max(snapshot_id) FROM $M.ducklake_snapshot"), snapshots)
        << "a refused statement wrote a snapshot: " << sql;
    EXPECT_EQ(Agree(kColumnRows), columns) << "a refused statement changed columns: " << sql;
    return moraine;
  }

  // Runs `sql` on both lakes and records the head it produced: the schema and
  // data of `table` (queried with `data_query`, `$T` naming the table).
  void Step(const std::string& sql, const std::string& table) {
    Both(sql);
    const Rows heads = {{std::to_string(session_->Head(kMoraine))}};
    EXPECT_EQ(heads, Rows{{std::to_string(session_->Head(kStock))}}) << sql;
    Recorded step;
    step.statement = sql;
    step.snapshot = session_->Head(kMoraine);
    step.table = table;
    step.schema = Agree(SchemaQuery(table, ""));
    step.data = Agree(DataQuery(table, ""));
    Agree(kColumnRows);
    steps_.push_back(std::move(step));
  }

  std::string At(int64_t snapshot) const {
    return snapshot < 0 ? "" : " AT (VERSION => " + std::to_string(snapshot) + ")";
  }
  std::string SchemaQuery(const std::string& table, const std::string& at) const {
    return "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM $L." + table + at + ")";
  }
  std::string DataQuery(const std::string& table, const std::string& at) const {
    return ReplaceAll(data_query_, "$T", "$L." + table + at);
  }

  Rows Schema(const std::string& table) { return Agree(SchemaQuery(table, "")); }
  Rows Data(const std::string& table) { return Agree(DataQuery(table, "")); }

  // Time travel to every snapshot the scenario produced returns that
  // snapshot's schema and data, on both lakes.
  void CheckTimeTravel() {
    ASSERT_FALSE(steps_.empty());
    for (const auto& step : steps_) {
      SCOPED_TRACE("at snapshot " + std::to_string(step.snapshot) + " after: " + step.statement);
      EXPECT_EQ(Agree(SchemaQuery(step.table, At(step.snapshot))), step.schema);
      EXPECT_EQ(Agree(DataQuery(step.table, At(step.snapshot))), step.data);
    }
    const auto& last = steps_.back();
    EXPECT_EQ(Agree(SchemaQuery(last.table, "")), last.schema);
    EXPECT_EQ(Agree(DataQuery(last.table, "")), last.data);
  }

  // Everything survives DETACH/ATTACH and a new Host.
  void CheckPersistence() {
    const Rows columns = Agree(kColumnRows);
    CheckTimeTravel();
    Both("DETACH $L");
    session_->Run(Attach(kMoraine));
    session_->Run(Attach(kStock));
    {
      SCOPED_TRACE("after DETACH/ATTACH");
      CheckTimeTravel();
      EXPECT_EQ(Agree(kColumnRows), columns);
    }
    session_.reset();
    Open();
    SCOPED_TRACE("after a restart");
    CheckTimeTravel();
    EXPECT_EQ(Agree(kColumnRows), columns);
  }

  // Number of Parquet data files and of inlined rows of the lake, as
  // DuckLake's catalog counts them.
  Rows Storage() {
    return Agree(
        "SELECT (SELECT count(*) FROM $M.ducklake_data_file), "
        "(SELECT count(*) FROM $M.ducklake_inlined_data_tables)");
  }

  test::TempDir dir_;
  std::string store_;  // moraine's lake: a directory in dir_, or etcd://...
  std::unique_ptr<Session> session_;
  std::vector<Recorded> steps_;
  std::string data_query_ = "SELECT * FROM $T ORDER BY id";
};

INSTANTIATE_TEST_SUITE_P(Inlining, SchemaEvolution, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "InliningOn" : "InliningOff";
                         });

// Top-level columns: ADD (plain, literal DEFAULT), DROP, RENAME, SET TYPE,
// SET DEFAULT (expression), DROP DEFAULT, RENAME TABLE.
TEST_P(SchemaEvolution, TopLevelColumns) {
  // ts gets now() as its default: compare whether it is set, not its value.
  data_query_ = "SELECT * REPLACE (ts IS NOT NULL AS ts) FROM $T ORDER BY id";
  Step("CREATE TABLE $L.t (id INTEGER, v INTEGER, name VARCHAR, ts TIMESTAMP)", "t");
  // Twelve rows always go to Parquet; the single-row inserts are inlined
  // unless inlining is off.
  Step("INSERT INTO $L.t SELECT i, i * 10, 'n' || i, NULL FROM range(1, 13) r(i)", "t");
  Step("INSERT INTO $L.t VALUES (13, 130, 'n13', NULL)", "t");

  Step("ALTER TABLE $L.t ADD COLUMN c INTEGER", "t");
  EXPECT_EQ(Agree("SELECT count(*), count(c) FROM $L.t"), (Rows{{"13", "0"}}));

  Step("ALTER TABLE $L.t ADD COLUMN d VARCHAR DEFAULT 'dflt'", "t");
  // Old files and inlined rows lack d: they read its initial default.
  EXPECT_EQ(Agree("SELECT d, count(*) FROM $L.t GROUP BY d"), (Rows{{"dflt", "13"}}));
  Step("INSERT INTO $L.t (id, v, name) VALUES (14, 140, 'n14')", "t");
  EXPECT_EQ(Agree("SELECT id, v, name, c, d FROM $L.t WHERE id IN (1, 13, 14) ORDER BY id"),
            (Rows{{"1", "10", "n1", "NULL", "dflt"},
                  {"13", "130", "n13", "NULL", "dflt"},
                  {"14", "140", "n14", "NULL", "dflt"}}));

  Step("ALTER TABLE $L.t DROP COLUMN name", "t");
  // The dropped column is still in the old files; it is ignored.
  EXPECT_EQ(Schema("t"), (Rows{{"id", "INTEGER"},
                               {"v", "INTEGER"},
                               {"ts", "TIMESTAMP"},
                               {"c", "INTEGER"},
                               {"d", "VARCHAR"}}));

  // An expression default once the column is committed.
  Step("ALTER TABLE $L.t ALTER COLUMN v SET DEFAULT 6 * 7", "t");
  Step("ALTER TABLE $L.t RENAME COLUMN v TO w", "t");
  Step("ALTER TABLE $L.t ALTER COLUMN w SET TYPE BIGINT", "t");
  // int32 values of old files and inlined rows are cast to int64.
  Step("INSERT INTO $L.t (id, w) VALUES (15, 5000000000)", "t");
  EXPECT_EQ(Agree("SELECT id, w, typeof(w) FROM $L.t WHERE id IN (1, 13, 15) ORDER BY id"),
            (Rows{{"1", "10", "BIGINT"}, {"13", "130", "BIGINT"}, {"15", "5000000000", "BIGINT"}}));

  Step("ALTER TABLE $L.t ALTER COLUMN ts SET DEFAULT now()", "t");
  // Pinned DuckLake: an expression default is refused on a column whose name
  // was not among the CREATE TABLE columns (SetDefault asks
  // IsColumnCreatedWithTable by name), even once that column is committed:
  // an added column, and a renamed one. The docs promise otherwise.
  EXPECT_NE(Refused("ALTER TABLE $L.t ALTER COLUMN c SET DEFAULT now()")
                .find("non-literal default value"),
            std::string::npos);
  EXPECT_NE(Refused("ALTER TABLE $L.t ALTER COLUMN w SET DEFAULT 7 * 6")
                .find("non-literal default value"),
            std::string::npos);
  // A literal default is fine there.
  Step("ALTER TABLE $L.t ALTER COLUMN c SET DEFAULT -1", "t");
  Step("INSERT INTO $L.t (id) VALUES (16)", "t");
  EXPECT_EQ(
      Agree("SELECT id, w, ts IS NOT NULL, c, d FROM $L.t WHERE id >= 15 ORDER BY id"),
      (Rows{{"15", "5000000000", "false", "NULL", "dflt"}, {"16", "42", "true", "-1", "dflt"}}));

  Step("ALTER TABLE $L.t ALTER COLUMN d DROP DEFAULT", "t");
  Step("INSERT INTO $L.t (id) VALUES (17)", "t");
  EXPECT_EQ(Agree("SELECT d FROM $L.t WHERE id = 17"), (Rows{{"NULL"}}));
  // Existing rows keep the initial default.
  EXPECT_EQ(Agree("SELECT count(*) FROM $L.t WHERE d = 'dflt'"), (Rows{{"16"}}));

  Step("ALTER TABLE $L.t RENAME TO t2", "t2");
  Step("INSERT INTO $L.t2 (id, w) VALUES (18, 1)", "t2");
  EXPECT_EQ(Agree("SELECT count(*), sum(w) FROM $L.t2"), (Rows{{"18", "5000001135"}}));
  // Time travel resolves the table by its name at that snapshot.
  EXPECT_NE(session_->Error("SELECT * FROM lake.t2" + At(steps_[2].snapshot)).find("t2"),
            std::string::npos);

  // Refusals: DuckLake's error, nothing written.
  EXPECT_NE(Refused("ALTER TABLE $L.t2 ALTER COLUMN w SET TYPE INTEGER")
                .find("only widening type promotions are allowed"),
            std::string::npos);
  EXPECT_NE(Refused("ALTER TABLE $L.t2 DROP COLUMN nope").find("nope"), std::string::npos);
  EXPECT_NE(Refused("ALTER TABLE $L.t2 RENAME COLUMN w TO id").find("already exists"),
            std::string::npos);
  EXPECT_NE(Refused("ALTER TABLE $L.t2 ADD COLUMN c VARCHAR").find("already exists"),
            std::string::npos);
  Both("CREATE TABLE $L.other (id INTEGER)");
  EXPECT_NE(Refused("ALTER TABLE $L.t2 RENAME TO other").find("already exists"), std::string::npos);
  Refused("ALTER TABLE $L.t2 ALTER COLUMN id SET TYPE VARCHAR");

  if (inlining()) {
    EXPECT_EQ(Storage()[0][0], "1") << "only the twelve-row insert wrote Parquet";
  } else {
    EXPECT_EQ(Storage()[0][0], "7") << "every insert wrote Parquet";
  }
  CheckPersistence();
}

// Struct fields: nested ADD, RENAME, DROP, and a struct SET TYPE that adds,
// removes and widens fields at once; then DROP of a whole struct column.
TEST_P(SchemaEvolution, StructFields) {
  Step("CREATE TABLE $L.n (id INTEGER, s STRUCT(a INTEGER, b VARCHAR))", "n");
  Step("INSERT INTO $L.n SELECT i, {'a': i, 'b': 'b' || i} FROM range(1, 13) r(i)", "n");
  Step("INSERT INTO $L.n VALUES (13, {'a': 13, 'b': 'b13'})", "n");

  Step("ALTER TABLE $L.n ADD COLUMN s.f INTEGER", "n");
  EXPECT_EQ(Data("n")[0], (std::vector<std::string>{"1", "{'a': 1, 'b': b1, 'f': NULL}"}));
  Step("INSERT INTO $L.n VALUES (14, {'a': 14, 'b': 'b14', 'f': 140})", "n");

  Step("ALTER TABLE $L.n RENAME COLUMN s.a TO x", "n");
  EXPECT_EQ(Schema("n"),
            (Rows{{"id", "INTEGER"}, {"s", "STRUCT(x INTEGER, b VARCHAR, f INTEGER)"}}));
  EXPECT_EQ(Agree("SELECT sum(s.x) FROM $L.n"), (Rows{{"105"}}));

  Step("ALTER TABLE $L.n DROP COLUMN s.b", "n");
  EXPECT_EQ(Agree("SELECT s FROM $L.n WHERE id IN (1, 14) ORDER BY id"),
            (Rows{{"{'x': 1, 'f': NULL}"}, {"{'x': 14, 'f': 140}"}}));

  // Widen x, remove f, add h: one SET TYPE.
  Step("ALTER TABLE $L.n ALTER COLUMN s SET TYPE STRUCT(x BIGINT, h VARCHAR)", "n");
  EXPECT_EQ(Schema("n"), (Rows{{"id", "INTEGER"}, {"s", "STRUCT(x BIGINT, h VARCHAR)"}}));
  EXPECT_EQ(Agree("SELECT s FROM $L.n WHERE id IN (1, 13, 14) ORDER BY id"),
            (Rows{{"{'x': 1, 'h': NULL}"}, {"{'x': 13, 'h': NULL}"}, {"{'x': 14, 'h': NULL}"}}));
  Step("INSERT INTO $L.n VALUES (15, {'x': 5000000000, 'h': 'h15'})", "n");
  // Fields keep their order whatever order the target type lists them in.
  Step("ALTER TABLE $L.n ALTER COLUMN s SET TYPE STRUCT(h VARCHAR, x BIGINT, y DOUBLE)", "n");
  EXPECT_EQ(Schema("n"), (Rows{{"id", "INTEGER"}, {"s", "STRUCT(x BIGINT, h VARCHAR, y DOUBLE)"}}));

  // Refusals.
  EXPECT_NE(Refused("ALTER TABLE $L.n RENAME COLUMN s.x TO h").find("already exists"),
            std::string::npos);
  Refused("ALTER TABLE $L.n DROP COLUMN s.nope");
  EXPECT_NE(
      Refused("ALTER TABLE $L.n ADD COLUMN s.x.z INTEGER").find("can only be added to structs"),
      std::string::npos);
  Refused("ALTER TABLE $L.n ALTER COLUMN s SET TYPE STRUCT(x INTEGER, h VARCHAR, y DOUBLE)");
  Refused("ALTER TABLE $L.n ADD COLUMN s.h INTEGER");

  Step("ALTER TABLE $L.n ADD COLUMN s2 STRUCT(p INTEGER, q INTEGER)", "n");
  Step("INSERT INTO $L.n (id, s2) VALUES (16, {'p': 1, 'q': 2})", "n");
  Step("ALTER TABLE $L.n DROP COLUMN s", "n");
  EXPECT_EQ(Schema("n"), (Rows{{"id", "INTEGER"}, {"s2", "STRUCT(p INTEGER, q INTEGER)"}}));
  EXPECT_EQ(Agree("SELECT id, s2 FROM $L.n WHERE id IN (1, 16) ORDER BY id"),
            (Rows{{"1", "NULL"}, {"16", "{'p': 1, 'q': 2}"}}));
  CheckPersistence();
}

// Structs inside lists and maps: fields addressed through element / value.
TEST_P(SchemaEvolution, StructsInsideListsAndMaps) {
  Step("CREATE TABLE $L.l (id INTEGER, l STRUCT(a INTEGER)[], m MAP(VARCHAR, STRUCT(p INTEGER)))",
       "l");
  Step("INSERT INTO $L.l SELECT i, [{'a': i}], MAP {'k': {'p': i}} FROM range(1, 13) r(i)", "l");
  Step("INSERT INTO $L.l VALUES (13, [{'a': 13}, {'a': -13}], MAP {'k': {'p': 13}})", "l");

  Step("ALTER TABLE $L.l ADD COLUMN l.element.f INTEGER", "l");
  Step("ALTER TABLE $L.l ADD COLUMN m.value.q VARCHAR", "l");
  EXPECT_EQ(Schema("l"), (Rows{{"id", "INTEGER"},
                               {"l", "STRUCT(a INTEGER, f INTEGER)[]"},
                               {"m", "MAP(VARCHAR, STRUCT(p INTEGER, q VARCHAR))"}}));
  EXPECT_EQ(Agree("SELECT l, m FROM $L.l WHERE id = 13"),
            (Rows{{"[{'a': 13, 'f': NULL}, {'a': -13, 'f': NULL}]", "{k={'p': 13, 'q': NULL}}"}}));
  Step("INSERT INTO $L.l VALUES (14, [{'a': 14, 'f': 140}], MAP {'k': {'p': 14, 'q': 'q14'}})",
       "l");

  Step("ALTER TABLE $L.l RENAME COLUMN l.element.a TO a2", "l");
  Step("ALTER TABLE $L.l DROP COLUMN l.element.f", "l");
  EXPECT_EQ(Agree("SELECT l FROM $L.l WHERE id IN (1, 14) ORDER BY id"),
            (Rows{{"[{'a2': 1}]"}, {"[{'a2': 14}]"}}));
  // Widen a2 and add g inside the list element.
  Step("ALTER TABLE $L.l ALTER COLUMN l SET TYPE STRUCT(a2 BIGINT, g VARCHAR)[]", "l");
  Step("INSERT INTO $L.l VALUES (15, [{'a2': 5000000000, 'g': 'g'}], NULL)", "l");
  EXPECT_EQ(Agree("SELECT l FROM $L.l WHERE id IN (1, 15) ORDER BY id"),
            (Rows{{"[{'a2': 1, 'g': NULL}]"}, {"[{'a2': 5000000000, 'g': g}]"}}));

  Refused("ALTER TABLE $L.l ALTER COLUMN l SET TYPE STRUCT(a2 INTEGER, g VARCHAR)[]");
  Refused("ALTER TABLE $L.l ADD COLUMN l.element.a2 INTEGER");
  Refused("ALTER TABLE $L.l DROP COLUMN l.element.nope");

  Step("ALTER TABLE $L.l DROP COLUMN m", "l");
  EXPECT_EQ(Schema("l"), (Rows{{"id", "INTEGER"}, {"l", "STRUCT(a2 BIGINT, g VARCHAR)[]"}}));
  CheckPersistence();
}

// A type promotion over rows that sit inlined in the catalog (or in Parquet
// when inlining is off), read back across the version boundary.
TEST_P(SchemaEvolution, TypePromotionOverInlinedRows) {
  Step("CREATE TABLE $L.p (id INTEGER, v INTEGER, f FLOAT)", "p");
  Step("INSERT INTO $L.p VALUES (1, 100, 1.5), (2, -5, NULL)", "p");
  Step("ALTER TABLE $L.p ALTER COLUMN v SET TYPE BIGINT", "p");
  EXPECT_EQ(Agree("SELECT id, v, typeof(v) FROM $L.p ORDER BY id"),
            (Rows{{"1", "100", "BIGINT"}, {"2", "-5", "BIGINT"}}));
  Step("INSERT INTO $L.p VALUES (3, 5000000000, 2.5)", "p");
  Step("ALTER TABLE $L.p ALTER COLUMN f SET TYPE DOUBLE", "p");
  Step("ALTER TABLE $L.p ALTER COLUMN id SET TYPE BIGINT", "p");
  Step("INSERT INTO $L.p VALUES (4, 4, 4.25)", "p");
  EXPECT_EQ(Schema("p"), (Rows{{"id", "BIGINT"}, {"v", "BIGINT"}, {"f", "DOUBLE"}}));
  EXPECT_EQ(Data("p"), (Rows{{"1", "100", "1.5"},
                             {"2", "-5", "NULL"},
                             {"3", "5000000000", "2.5"},
                             {"4", "4", "4.25"}}));
  // Before the promotion the rows read with their old types.
  EXPECT_EQ(Agree("SELECT typeof(id), typeof(v), typeof(f), v FROM $L.p" + At(steps_[1].snapshot) +
                  " ORDER BY id"),
            (Rows{{"INTEGER", "INTEGER", "FLOAT", "100"}, {"INTEGER", "INTEGER", "FLOAT", "-5"}}));
  if (inlining()) {
    // All rows inlined: no Parquet, one inlined table per schema version
    // that received rows or was read.
    EXPECT_EQ(Storage(), (Rows{{"0", "4"}}));
  } else {
    EXPECT_EQ(Storage()[0][0], "3");
  }
  CheckPersistence();
}

// Dropping a struct's last field. The docs say it cannot be dropped; the
// pinned DuckLake (d8a1881) does not refuse it up front. What happens then
// depends on inlining, and moraine must do exactly what the stock catalog
// does:
//   - with inlined rows, the commit fails: DuckLake creates the inlined-data
//     table for the new schema version with a column typed `STRUCT()`, which
//     does not parse; nothing changes;
//   - without, the drop commits, and every later load of the lake's schema
//     fails with an INTERNAL error (an unset optional pointer in
//     DuckLakeCatalog::LoadSchemaForSnapshot) on both catalogs.
TEST_P(SchemaEvolution, DroppingTheLastStructFieldIsWhatDuckLakeDoes) {
  Step("CREATE TABLE $L.z (id INTEGER, s STRUCT(a INTEGER, b INTEGER))", "z");
  Step("INSERT INTO $L.z VALUES (1, {'a': 1, 'b': 2})", "z");
  Step("ALTER TABLE $L.z DROP COLUMN s.a", "z");
  EXPECT_EQ(Schema("z"), (Rows{{"id", "INTEGER"}, {"s", "STRUCT(b INTEGER)"}}));
  if (inlining()) {
    const std::string error = Refused("ALTER TABLE $L.z DROP COLUMN s.b");
    EXPECT_NE(error.find("STRUCT()"), std::string::npos) << error;
    EXPECT_NE(error.find("syntax error"), std::string::npos) << error;
    CheckPersistence();
    return;
  }
  const Rows before = Agree("SELECT max(snapshot_id) FROM $M.ducklake_snapshot");
  Both("ALTER TABLE $L.z DROP COLUMN s.b");
  EXPECT_EQ(Agree("SELECT max(snapshot_id) FROM $M.ducklake_snapshot"),
            (Rows{{std::to_string(std::stoll(before[0][0]) + 1)}}));
  EXPECT_EQ(Agree("SELECT count(*) FROM $M.ducklake_column WHERE column_name = 'b' AND "
                  "end_snapshot IS NOT NULL"),
            (Rows{{"1"}}));
  Agree(kColumnRows);
  for (const char* lake : {kMoraine, kStock}) {
    const std::string error = session_->Error(On("SELECT * FROM $L.z", lake));
    EXPECT_NE(error.find("INTERNAL Error"), std::string::npos) << lake << ": " << error;
  }
}

}  // namespace
}  // namespace moraine
