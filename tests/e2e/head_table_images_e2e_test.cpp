// Head table images (commit/rows/head_table_image.h) through DuckLake SQL:
// after every kind of table change DuckLake makes (nested columns, defaults,
// renames, drops, type changes, comments, partitions, inlined data tables,
// schemas, renamed and dropped tables, a transaction of several changes, a
// rollback), the images are what the rows make of the tables (verify), the
// catalog loaded from them equals the one joined from the rows, and DuckLake
// shows the same tables and columns as over its own SQL. A lake whose head
// predates them is read from its rows, its commits write none, and `moraine
// migrate` writes them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commit/lake/commit_store.h"
#include "commit/lake/lake_catalog.h"
#include "commit/lake/store_records.h"
#include "commit/migrations/store_format.h"
#include "commit/rows/head_table_image.h"
#include "commit/rows/row_transaction.h"
#include "store/kv_store.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/ducklake_session.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::DuckLakeSession;
using test::Rows;
using test::TempDir;

const std::vector<std::string> kChanges = {
    "CREATE SCHEMA lake.s",
    "CREATE TABLE lake.t(id INTEGER NOT NULL, name VARCHAR DEFAULT 'x', "
    "st STRUCT(a INTEGER, b VARCHAR), l INTEGER[], m MAP(VARCHAR, INTEGER), small INTEGER)",
    "CREATE TABLE lake.s.u(k BIGINT)",
    "INSERT INTO lake.t VALUES (1, 'a', {'a': 1, 'b': 'x'}, [1, 2], MAP {'k': 1}, 3)",
    "ALTER TABLE lake.t ADD COLUMN extra DOUBLE DEFAULT 1.5",
    "ALTER TABLE lake.t RENAME COLUMN name TO label",
    "ALTER TABLE lake.t ADD COLUMN st.c BOOLEAN",
    "ALTER TABLE lake.t DROP COLUMN l",
    "ALTER TABLE lake.t ALTER COLUMN small TYPE BIGINT",
    "COMMENT ON TABLE lake.t IS 'the t'",
    "COMMENT ON COLUMN lake.t.id IS 'the id'",
    "ALTER TABLE lake.t SET PARTITIONED BY (id)",
    "CREATE TABLE lake.gone(x INTEGER)",
    "DROP TABLE lake.gone",
    "ALTER TABLE lake.s.u RENAME TO v",
    "BEGIN",
    "CREATE TABLE lake.a(x INTEGER)",
    "ALTER TABLE lake.t ADD COLUMN y INTEGER",
    "COMMENT ON TABLE lake.a IS 'made with t''s y'",
    "COMMIT",
    "BEGIN",
    "CREATE TABLE lake.rolled(x INTEGER)",
    "ALTER TABLE lake.a ADD COLUMN z INTEGER",
    "ROLLBACK",
    "INSERT INTO lake.t (id) VALUES (2)",
    "CREATE VIEW lake.vw AS SELECT id FROM lake.t",
    "COMMENT ON TABLE lake.t IS 'the t, again'",
    "ALTER TABLE lake.t DROP COLUMN st.b",
    "ALTER TABLE lake.t RENAME COLUMN st.a TO aa",
    "ALTER TABLE lake.t RENAME COLUMN st TO st2",
    "ALTER TABLE lake.t ADD COLUMN deep STRUCT(x STRUCT(y INTEGER), z INTEGER)",
    "ALTER TABLE lake.t ADD COLUMN deep.x.w VARCHAR",
    "ALTER TABLE lake.t RENAME COLUMN deep.x TO xx",
    "ALTER TABLE lake.t ALTER COLUMN extra SET DEFAULT 2.5",
    "ALTER TABLE lake.t ALTER COLUMN id DROP NOT NULL",
    "ALTER TABLE lake.t DROP COLUMN deep",
    "ALTER TABLE lake.t ADD COLUMN l INTEGER[]",
};

const char* kShownTables =
    "SELECT schema_name, table_name, comment FROM duckdb_tables() WHERE database_name = 'lake' "
    "ORDER BY ALL";
const char* kShownColumns =
    "SELECT table_name, column_name, column_index, data_type, column_default, is_nullable, "
    "comment FROM duckdb_columns() WHERE database_name = 'lake' ORDER BY ALL";

void Attach(DuckLakeSession& session, const std::string& dir, const std::string& options = "") {
  session.Run("ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (DATA_PATH '" + dir +
              "/files/', DATA_INLINING_ROW_LIMIT 10" + options + ")");
}

// What DuckLake shows of the lake's tables and columns, with moraine's
// manager (`options` empty) or over DuckLake's own SQL.
std::pair<Rows, Rows> Shown(const std::string& dir, const std::string& options = "") {
  DuckLakeSession session;
  Attach(session, dir, options);
  return {session.Query(kShownTables), session.Query(kShownColumns)};
}

std::string Location(const std::string& dir) { return dir + "/lake.moraine"; }

// The catalog at the head as the catalog load reads it, and how many images
// the head serves (-1: it serves none, so the rows were read).
std::pair<commit::LakeCatalog, int> HeadCatalog(const std::string& dir) {
  commit::CommitStore store(store::OpenKvStore({.location = Location(dir)}));
  auto rows = commit::BeginRowTransaction(store);
  int images = 0;
  if (!rows->VisitHeadTableImages(std::nullopt, [&](std::string_view) { ++images; })) images = -1;
  const int64_t head = rows->LatestSnapshot()->snapshot_id;
  auto catalog = commit::ReadLakeCatalog(*rows, head, dir + "/files/", "/");
  rows->Rollback();
  return {std::move(catalog), images};
}

size_t StoredImages(const std::string& dir) {
  auto store = store::OpenKvStore({.location = Location(dir)});
  size_t count = 0;
  for (auto it = store->GetSnapshot()->Scan(commit::HeadTableImagesRange()); it->Valid();
       it->Next()) {
    ++count;
  }
  return count;
}

// Rewrites the head as a build before the images wrote it: without the word
// that every table has its image, and without the images.
void ForgetHeadTableImages(const std::string& dir) {
  auto store = store::OpenKvStore({.location = Location(dir)});
  const auto snapshot = store->GetSnapshot();
  const auto head = snapshot->Get(commit::HeadKey());
  ASSERT_TRUE(head);
  store::v1::HeadRecord record;
  store::UnframeValue(store::Kind::kHead, *head, &record);
  ASSERT_TRUE(record.head_table_images());
  record.clear_head_table_images();
  store::WriteBatch batch;
  batch.Put(commit::HeadKey(), store::FrameValue(store::Kind::kHead, record));
  for (auto it = snapshot->Scan(commit::HeadTableImagesRange()); it->Valid(); it->Next()) {
    batch.Delete(it->key());
  }
  ASSERT_TRUE(store->WriteIfHeadUnchanged(commit::HeadKey(), head, batch));
}

TEST(HeadTableImages, EveryTableChangeLeavesTheImagesTheRowsMake) {
  TempDir temp;
  const std::string dir = temp.path("lake");
  {
    DuckLakeSession session;
    Attach(session, dir);
    for (const auto& change : kChanges) {
      session.Run(change);
      if (change == "BEGIN") continue;
      SCOPED_TRACE(change);
      test::ExpectStoreVerifies(Location(dir));
    }
  }
  // t, a and s.v are live; gone was dropped and rolled never landed.
  EXPECT_EQ(StoredImages(dir), 3u);
  const auto [from_images, images] = HeadCatalog(dir);
  EXPECT_EQ(images, 3);
  const auto native = Shown(dir);
  EXPECT_EQ(native, Shown(dir, ", META_NATIVE_MANAGER false"));
  EXPECT_EQ(
      native.first,
      (Rows{{"main", "a", "made with t's y"}, {"main", "t", "the t, again"}, {"s", "v", "NULL"}}));

  // The same catalog joined from the rows.
  ForgetHeadTableImages(dir);
  const auto [from_rows, none] = HeadCatalog(dir);
  EXPECT_EQ(none, -1);
  EXPECT_TRUE(from_images == from_rows);
  ASSERT_EQ(from_rows.tables.size(), 3u);
  EXPECT_EQ(from_rows.tables[0].name, "t");
  EXPECT_EQ(from_rows.tables[0].columns.size(), 8u);
}

TEST(HeadTableImages, ALakeWithoutThemIsReadFromItsRowsUntilMigrated) {
  TempDir temp;
  const std::string dir = temp.path("lake");
  {
    DuckLakeSession session;
    Attach(session, dir);
    for (const auto& change : kChanges) session.Run(change);
  }
  const auto before = Shown(dir);
  ForgetHeadTableImages(dir);
  test::ExpectStoreVerifies(Location(dir));
  EXPECT_EQ(Shown(dir), before);
  {
    DuckLakeSession session;
    Attach(session, dir);
    session.Run("ALTER TABLE lake.a ADD COLUMN late VARCHAR");
    session.Run("CREATE TABLE lake.later(x INTEGER)");
  }
  EXPECT_EQ(StoredImages(dir), 0u);
  EXPECT_EQ(HeadCatalog(dir).second, -1);
  test::ExpectStoreVerifies(Location(dir));
  const auto grown = Shown(dir);
  EXPECT_EQ(grown, Shown(dir, ", META_NATIVE_MANAGER false"));

  EXPECT_TRUE(commit::MigrateStore(Location(dir)).summarized);
  test::ExpectStoreVerifies(Location(dir));
  EXPECT_EQ(StoredImages(dir), 4u);
  const auto [migrated, images] = HeadCatalog(dir);
  EXPECT_EQ(images, 4);
  EXPECT_EQ(Shown(dir), grown);
  ForgetHeadTableImages(dir);
  EXPECT_TRUE(HeadCatalog(dir).first == migrated);
}

}  // namespace
}  // namespace moraine
