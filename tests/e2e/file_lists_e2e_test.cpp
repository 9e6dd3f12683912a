// The file lists of DuckLake's table scans served from the store, pruned by
// the per-file column stats (ducklake_adapter/file_list_read.h), give exactly
// what DuckLake's own SQL gives over the same lake: for filters of every shape
// DuckDB pushes, at every snapshot, with delete files and deletions inlined in
// the catalog, files a compaction
// merged (read at an earlier snapshot through their rows' snapshot ids),
// partitioned tables, and the scans of deletes and updates (DuckLake's
// extended list). A selective scan prunes, and of a table of many files it
// reads only the summary pages its filters cannot rule out.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "commit/lake/store_records.h"
#include "commit/migrations/store_format.h"
#include "commit/rows/data_file_summary.h"
#include "ducklake_adapter/native_metadata_manager.h"
#include "store/kv_store.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/ducklake_session.h"
#include "support/store_verify.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using ducklake_adapter::NativeMetadataManager;
using test::DuckLakeSession;
using test::Rows;
using test::TempDir;

const std::vector<std::string> kFilters = {
    "id = 7",
    "id <> 7",
    "id > 20 AND id <= 24",
    "id < 3 OR id >= 30",
    "id IN (2, 17, 31)",
    "id BETWEEN 5 AND 9 AND p > 'p6'",
    "p = 'p12'",
    "p IS NULL",
    "p IS NOT NULL AND id < 10",
    "d > 1.5",
    "d = 'nan'::DOUBLE",
    "d >= 'nan'::DOUBLE",
    "m = 3.75",
    "day = DATE '2026-01-05'",
    "ts < TIMESTAMP '2026-01-01 05:00:00'",
    "flag",
    "NOT flag",
    "f32 = 1.5",
    "u = '00000000-0000-0000-0000-000000000004'",
    "id + 1 = 8",
    "p LIKE 'p1%'",
    "id = 7 OR p = 'p20'",
};

void Attach(DuckLakeSession& session, const std::string& dir, const std::string& options) {
  session.Run("ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (DATA_PATH '" + dir +
              "/files/'" + options + ")");
}

// Builds a lake of one file per insert and returns what each filtered read
// gives, at the head and at every snapshot.
std::vector<Rows> RunSession(const std::string& dir, const std::string& options) {
  DuckLakeSession session;
  // Inserts of three rows or more write files; deletes of up to two rows of a
  // file are inlined in the catalog.
  Attach(session, dir, ", DATA_INLINING_ROW_LIMIT 2" + options);
  session.Run(
      "CREATE TABLE lake.t(id BIGINT, p VARCHAR, d DOUBLE, m DECIMAL(9,2), day DATE, "
      "ts TIMESTAMP, flag BOOLEAN, f32 FLOAT, u UUID)");
  for (int file = 0; file < 12; ++file) {
    const std::string first = std::to_string(file * 3);
    session.Run(
        "INSERT INTO lake.t SELECT i, CASE WHEN i % 5 = 1 THEN NULL ELSE 'p' || i END, "
        "CASE WHEN i = 13 THEN 'nan'::DOUBLE ELSE i / 8 END, i * 1.25, "
        "DATE '2026-01-01' + i::INTEGER, TIMESTAMP '2026-01-01' + INTERVAL (i) HOUR, i % 3 = 0, "
        "i / 2, ('00000000-0000-0000-0000-' || lpad(i::VARCHAR, 12, '0'))::UUID "
        "FROM range(" +
        first + ", " + first + " + 3) r(i)");
  }
  session.Run("DELETE FROM lake.t WHERE id IN (4, 22)");  // inlined deletions
  session.Run("DELETE FROM lake.t WHERE id >= 33");       // a delete file
  session.Run("ALTER TABLE lake.t ADD COLUMN e INTEGER");
  session.Run("INSERT INTO lake.t (id, p, e) VALUES (40, 'after', 1), (41, NULL, 2)");
  session.Run("CALL ducklake_merge_adjacent_files('lake')");
  session.Run("DELETE FROM lake.t WHERE id = 30");

  session.Run("CREATE TABLE lake.part(k INTEGER, v VARCHAR)");
  session.Run("ALTER TABLE lake.part SET PARTITIONED BY (k)");
  session.Run("INSERT INTO lake.part SELECT i % 4, 'v' || i FROM range(20) r(i)");
  session.Run("CREATE TABLE lake.bucketed(k INTEGER, v VARCHAR)");
  session.Run("ALTER TABLE lake.bucketed SET PARTITIONED BY (bucket(3, k))");
  session.Run("INSERT INTO lake.bucketed SELECT i, 'v' || i FROM range(12) r(i)");

  std::vector<Rows> results;
  const int head = std::stoi(session.Query("SELECT max(snapshot_id) FROM lake.snapshots()")[0][0]);
  for (const auto& filter : kFilters) {
    results.push_back(session.Query("SELECT * FROM lake.t WHERE " + filter + " ORDER BY id"));
    for (int version = 2; version <= head; version += 3) {
      results.push_back(session.Query("SELECT id, p FROM lake.t AT (VERSION => " +
                                      std::to_string(version) + ") WHERE " + filter +
                                      " ORDER BY id"));
    }
  }
  // A delete's and an update's scans read DuckLake's extended file list.
  session.Run("DELETE FROM lake.t WHERE id = 8 OR p = 'p17'");
  session.Run("UPDATE lake.t SET p = 'updated' WHERE id BETWEEN 25 AND 27");
  session.Run("DELETE FROM lake.t WHERE d > 3.5");
  results.push_back(session.Query("SELECT id, p, d FROM lake.t ORDER BY id"));
  results.push_back(session.Query("SELECT count(*), sum(id) FROM lake.t"));
  // A Top-N scan's dynamic filter orders DuckLake's file list: its SQL answers.
  results.push_back(session.Query("SELECT id, p FROM lake.t ORDER BY id DESC LIMIT 3"));
  results.push_back(session.Query("SELECT * FROM lake.part WHERE k = 2 ORDER BY v"));
  results.push_back(session.Query("SELECT * FROM lake.bucketed WHERE k = 5 ORDER BY v"));
  results.push_back(session.Query("SELECT * FROM lake.bucketed WHERE v = 'v5' ORDER BY v"));
  // File names are random: the lists are compared by what each entry holds.
  for (int version = 1; version <= head; version += 2) {
    results.push_back(session.Query(
        "SELECT data_file_footer_size IS NOT NULL, delete_file IS NOT NULL, "
        "delete_file_size_bytes IS NOT NULL, count(*) FROM ducklake_list_files('lake', 't', "
        "snapshot_version => " +
        std::to_string(version) + ") GROUP BY ALL ORDER BY ALL"));
  }
  // The data file summaries agree with the rows after all of the above.
  test::ExpectStoreVerifies(dir + "/lake.moraine");
  return results;
}

TEST(FileLists, AreAnsweredFromTheStoreAsDuckLakesSqlAnswersThem) {
  TempDir native_dir, sql_dir;
  const auto before = NativeMetadataManager::CurrentStatus();
  const auto native = RunSession(native_dir.path("lake"), "");
  const auto after_native = NativeMetadataManager::CurrentStatus();
  EXPECT_GE(after_native.native_file_lists - before.native_file_lists, kFilters.size())
      << "every scan of the table read its file list from the store";
  EXPECT_GT(after_native.files_pruned, before.files_pruned) << "no selective scan pruned a file";
  EXPECT_GT(after_native.summarized_file_lists, before.summarized_file_lists)
      << "no file list was decided by the data file summaries";
  const auto sql = RunSession(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  EXPECT_EQ(NativeMetadataManager::CurrentStatus().native_file_lists,
            after_native.native_file_lists)
      << "the SQL lake was answered natively";
  ASSERT_EQ(native.size(), sql.size());
  for (size_t i = 0; i < native.size(); ++i) EXPECT_EQ(native[i], sql[i]) << "read " << i;
}

TEST(FileLists, ASelectiveScanReadsOnlyItsCandidateFiles) {
  TempDir dir;
  DuckLakeSession session;
  Attach(session, dir.path("lake"), ", DATA_INLINING_ROW_LIMIT 0");
  session.Run("CREATE TABLE lake.f(id BIGINT, v VARCHAR)");
  for (int i = 0; i < 50; ++i) {
    session.Run("INSERT INTO lake.f VALUES (" + std::to_string(i) + ", 'v" + std::to_string(i) +
                "')");
  }
  const auto before = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(session.Query("SELECT v FROM lake.f WHERE id = 42"), (Rows{{"v42"}}));
  const auto after = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(after.files_pruned - before.files_pruned, 49u);
  EXPECT_EQ(after.summarized_file_lists - before.summarized_file_lists, 1u);
  // At an earlier snapshot, and after files are rewritten, the same.
  EXPECT_EQ(session.Query("SELECT v FROM lake.f AT (VERSION => 10) WHERE id = 5"), (Rows{{"v5"}}));
  session.Run("DELETE FROM lake.f WHERE id < 40");
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.f WHERE id = 5"), (Rows{{"0"}}));
  EXPECT_EQ(session.Query("SELECT count(*), sum(id) FROM lake.f"), (Rows{{"10", "445"}}));
  EXPECT_EQ(session.Query("SELECT v FROM lake.f AT (VERSION => 10) WHERE id = 5"), (Rows{{"v5"}}));
  // Expiry deletes the ended files' rows, and their summaries go with them.
  session.Run("CALL ducklake_expire_snapshots('lake', older_than => now())");
  EXPECT_EQ(session.Query("SELECT count(*), sum(id) FROM lake.f WHERE id >= 45"),
            (Rows{{"5", "235"}}));
  test::ExpectStoreVerifies(dir.path("lake") + "/lake.moraine");
}

// Summaries carry the stats of a table's first 128 column ids: a filter on a
// later column is decided from the stats rows, with the same answer.
TEST(FileLists, AFilterOnAColumnBeyondTheSummarizedOnesIsDecidedFromTheStatsRows) {
  TempDir dir;
  DuckLakeSession session;
  Attach(session, dir.path("lake"), ", DATA_INLINING_ROW_LIMIT 0");
  std::string columns = "id BIGINT";
  for (int c = 1; c < 140; ++c) columns += ", c" + std::to_string(c) + " INTEGER";
  session.Run("CREATE TABLE lake.wide(" + columns + ")");
  for (int i = 0; i < 6; ++i) {
    session.Run("INSERT INTO lake.wide (id, c139, c2) VALUES (" + std::to_string(i) + ", " +
                std::to_string(i * 10) + ", " + std::to_string(i) + ")");
  }
  auto before = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(session.Query("SELECT id FROM lake.wide WHERE c139 = 30"), (Rows{{"3"}}));
  auto after = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(after.files_pruned - before.files_pruned, 5u);
  EXPECT_EQ(after.summarized_file_lists, before.summarized_file_lists);
  before = after;
  EXPECT_EQ(session.Query("SELECT id FROM lake.wide WHERE c2 = 4"), (Rows{{"4"}}));
  after = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(after.files_pruned - before.files_pruned, 5u);
  EXPECT_EQ(after.summarized_file_lists - before.summarized_file_lists, 1u);
}

const std::vector<std::string> kManyFileFilters = {
    "id = 142",       "id BETWEEN 10 AND 12 OR id > 195",
    "id <> 5",        "v = 'v150'",
    "v < 'v010'",     "d = 3.5",
    "id IN (3, 170)",
};

// What each of kManyFileFilters reads of lake.f.
std::vector<Rows> ManyFileReads(DuckLakeSession& session) {
  std::vector<Rows> results;
  for (const auto& filter : kManyFileFilters) {
    results.push_back(session.Query("SELECT * FROM lake.f WHERE " + filter + " ORDER BY id"));
  }
  // Counts, which read a page only where one of its files is not live.
  results.push_back(session.Query("SELECT count(*) FROM lake.f"));
  results.push_back(session.Query("SELECT count(*) FROM lake.f AT (VERSION => 100)"));
  return results;
}

// 200 one-row files, and what each of kManyFileFilters reads of them.
std::vector<Rows> ManyFilesSession(const std::string& dir, const std::string& options) {
  DuckLakeSession session;
  Attach(session, dir, ", DATA_INLINING_ROW_LIMIT 0" + options);
  session.Run("CREATE TABLE lake.f(id BIGINT, v VARCHAR, d DOUBLE)");
  for (int i = 0; i < 200; ++i) {
    const std::string id = std::to_string(i);
    session.Run("INSERT INTO lake.f VALUES (" + id + ", 'v' || lpad('" + id + "', 3, '0'), " + id +
                " / 2)");
  }
  // A delete file, and an ended file.
  session.Run("INSERT INTO lake.f VALUES (500, 'x', 0), (501, 'y', 0)");
  session.Run("DELETE FROM lake.f WHERE id = 500 OR id = 77");
  return ManyFileReads(session);
}

// Rewrites the head of the lake at `location` as a build before the bounds
// wrote it: without the word that every summary page has its bounds, and
// without the bounds.
void ForgetSummaryBounds(const std::string& location) {
  auto store = store::OpenKvStore({.location = location});
  const auto snapshot = store->GetSnapshot();
  const auto head = snapshot->Get(commit::HeadKey());
  ASSERT_TRUE(head);
  store::v1::HeadRecord record;
  store::UnframeValue(store::Kind::kHead, *head, &record);
  ASSERT_TRUE(record.data_file_summary_bounds());
  record.clear_data_file_summary_bounds();
  store::WriteBatch batch;
  batch.Put(commit::HeadKey(), store::FrameValue(store::Kind::kHead, record));
  for (auto it = snapshot->Scan(
           store::PrefixRange(store::Subspace::kCurrent, store::Kind::kDataFileSummaryBounds));
       it->Valid(); it->Next()) {
    batch.Delete(it->key());
  }
  ASSERT_TRUE(store->WriteIfHeadUnchanged(commit::HeadKey(), head, batch));
}

uint64_t PagesSkipped() {
  return NativeMetadataManager::CurrentStatus().file_summary_pages_skipped;
}

TEST(FileLists, OfManyFilesOnlyThePagesTheFiltersCannotRuleOutAreRead) {
  TempDir native_dir, sql_dir;
  const auto before = PagesSkipped();
  const auto native = ManyFilesSession(native_dir.path("lake"), "");
  // 200 files are four pages; each integer or text filter but `<>` rules
  // out two or three.
  EXPECT_GE(PagesSkipped() - before, 8u);
  const auto sql = ManyFilesSession(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  ASSERT_EQ(native.size(), sql.size());
  for (size_t i = 0; i < native.size(); ++i) {
    EXPECT_EQ(native[i], sql[i]) << "read " << i;
  }
  EXPECT_EQ(native[0], (Rows{{"142", "v142", "71.0"}}));
  EXPECT_EQ(native[kManyFileFilters.size()], (Rows{{"200"}}));
  const std::string location = native_dir.path("lake") + "/lake.moraine";
  test::ExpectStoreVerifies(location);

  // A lake whose head predates the bounds reads every page, the same; its
  // commits keep no bounds; `moraine migrate` writes them.
  ForgetSummaryBounds(location);
  std::vector<Rows> unbounded_reads;
  {
    DuckLakeSession session;
    Attach(session, native_dir.path("lake"), "");
    const auto unbounded = PagesSkipped();
    EXPECT_EQ(ManyFileReads(session), native);
    session.Run("INSERT INTO lake.f VALUES (1000, 'late', 0)");
    EXPECT_EQ(session.Query("SELECT v FROM lake.f WHERE id = 1000"), (Rows{{"late"}}));
    unbounded_reads = ManyFileReads(session);
    EXPECT_EQ(PagesSkipped(), unbounded);
  }
  test::ExpectStoreVerifies(location);
  EXPECT_TRUE(commit::MigrateStore(location).summarized);
  test::ExpectStoreVerifies(location);
  DuckLakeSession session;
  Attach(session, native_dir.path("lake"), "");
  const auto migrated = PagesSkipped();
  EXPECT_EQ(session.Query("SELECT v FROM lake.f WHERE id = 1000"), (Rows{{"late"}}));
  EXPECT_EQ(ManyFileReads(session), unbounded_reads);
  EXPECT_GE(PagesSkipped() - migrated, 8u);
}

}  // namespace
}  // namespace moraine
