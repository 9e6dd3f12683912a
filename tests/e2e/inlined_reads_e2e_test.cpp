// DuckLake's reads of inlined rows served from the store's row batches
// (ducklake_adapter/inlined_data_result.h) give exactly what DuckLake's own
// SQL gives over the same lake: at every snapshot, after deletes and
// updates of inlined rows, across schema versions, for types whose cells are
// stored raw and types whose cells are DuckDB's serialization.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "ducklake_adapter/native_metadata_manager.h"
#include "support/ducklake_session.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using ducklake_adapter::NativeMetadataManager;
using test::DuckLakeSession;
using test::Rows;
using test::TempDir;

uint64_t NativeInlinedReads() {
  return NativeMetadataManager::CurrentStatus().native_inlined_reads;
}

void Attach(DuckLakeSession& session, const std::string& dir, const std::string& options) {
  session.Run("ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (DATA_PATH '" + dir +
              "/files/', DATA_INLINING_ROW_LIMIT 10" + options + ")");
}

// Builds the lake and returns what each read gives, snapshot by snapshot.
std::vector<Rows> RunSession(const std::string& dir, const std::string& options) {
  DuckLakeSession session;
  Attach(session, dir, options);
  session.Run(
      "CREATE TABLE lake.t(id BIGINT, p VARCHAR, d DOUBLE, ts TIMESTAMP, m DECIMAL(9,2), "
      "l INTEGER[], b BLOB, u UUID)");
  for (int commit = 0; commit < 12; ++commit) {
    const std::string first = std::to_string(commit * 3);
    session.Run(
        "INSERT INTO lake.t SELECT i, CASE WHEN i % 4 = 1 THEN NULL ELSE 'p' || i END, "
        "i / 8, TIMESTAMP '2026-01-01' + INTERVAL (i) HOUR, i * 1.25, [i, NULL, i + 1], "
        "('\\x00' || i)::BLOB, ('00000000-0000-0000-0000-' || lpad(i::VARCHAR, 12, '0'))::UUID "
        "FROM range(" +
        first + ", " + first + " + 3) r(i)");
  }
  session.Run("DELETE FROM lake.t WHERE id % 5 = 0");
  session.Run("UPDATE lake.t SET p = coalesce(p, '') || 'u', m = m + 1 WHERE id % 7 = 0");
  session.Run("ALTER TABLE lake.t ADD COLUMN e INTEGER");
  session.Run("INSERT INTO lake.t (id, p, e) VALUES (100, 'after', 1), (101, NULL, NULL)");
  session.Run("DELETE FROM lake.t WHERE id = 101");

  std::vector<Rows> results;
  const auto head = session.Query("SELECT max(snapshot_id) FROM lake.snapshots()")[0][0];
  for (int version = 1; version <= std::stoi(head); ++version) {
    results.push_back(session.Query("SELECT * FROM lake.t AT (VERSION => " +
                                    std::to_string(version) + ") ORDER BY id"));
  }
  results.push_back(session.Query("SELECT rowid, id, p FROM lake.t"));
  results.push_back(session.Query("SELECT count(*), sum(id), max(p), min(ts) FROM lake.t"));
  results.push_back(session.Query("SELECT p, m, l FROM lake.t WHERE id = 7"));
  results.push_back(session.Query("SELECT count(*) FROM lake.t WHERE id BETWEEN 10 AND 20"));
  // Filters DuckDB pushes into the scan, which the read applies before it
  // decodes the other columns (inlined_reader_hook.h), on each kind of
  // column and at an older snapshot.
  for (const std::string where :
       {"p = 'p9u'", "p IS NULL", "p IS NOT NULL AND id > 20", "d >= 2.5",
        "ts < TIMESTAMP '2026-01-01 05:00:00'", "m BETWEEN 3 AND 9", "id IN (1, 2, 33, 100)",
        "id = 3 OR id = 31", "u = '00000000-0000-0000-0000-000000000004'", "p LIKE 'p1%'",
        "id % 3 = 1"}) {
    results.push_back(session.Query("SELECT id, p, e FROM lake.t WHERE " + where + " ORDER BY id"));
    results.push_back(session.Query("SELECT id, p FROM lake.t AT (VERSION => 8) WHERE " + where +
                                    " ORDER BY id"));
  }
  results.push_back(session.Query("SELECT id, p, e FROM lake.t WHERE e = 1 ORDER BY id"));
  results.push_back(
      session.Query("SELECT id, p, e FROM lake.t WHERE e IS NULL AND id < 4 ORDER BY id"));
  // A scan of the transaction's own changes: DuckLake finds its deleted rows
  // by walking the read's rows in order, so nothing may be left out of it (a
  // deleted row the filter drops, 3, before one it keeps, 32, once made 32
  // show).
  session.Run("BEGIN");
  session.Run("DELETE FROM lake.t WHERE id IN (3, 32)");
  session.Run("INSERT INTO lake.t (id, p) VALUES (200, 'local')");
  results.push_back(
      session.Query("SELECT id, p FROM lake.t WHERE id < 10 OR id = 200 ORDER BY id"));
  results.push_back(session.Query("SELECT rowid, id FROM lake.t WHERE id > 30 ORDER BY id"));
  session.Run("COMMIT");
  results.push_back(session.Query("SELECT rowid, id, p FROM lake.t WHERE id < 10 ORDER BY id"));
  return results;
}

TEST(InlinedReads, AreAnsweredFromTheStoreAsDuckLakesSqlAnswersThem) {
  TempDir native_dir, sql_dir;
  const uint64_t before = NativeInlinedReads();
  const auto native = RunSession(native_dir.path("lake"), "");
  const uint64_t after_native = NativeInlinedReads();
  EXPECT_GE(after_native - before, 20u) << "every read of the table read its inlined rows";
  const auto sql = RunSession(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  EXPECT_EQ(NativeInlinedReads(), after_native) << "the SQL lake was answered natively";
  ASSERT_EQ(native.size(), sql.size());
  for (size_t i = 0; i < native.size(); ++i) EXPECT_EQ(native[i], sql[i]) << "read " << i;
  // The reads covered rows: updated, deleted, and of two schema versions.
  EXPECT_NE(std::find(native.begin(), native.end(), Rows{{"8"}}), native.end());
}

// A point query reads the matching row only: every other live row is left out
// by the scan's filter before its other columns are decoded.
TEST(InlinedReads, AScansFilterLeavesTheOtherRowsOut) {
  TempDir dir;
  DuckLakeSession session;
  Attach(session, dir.path("lake"), "");
  session.Run("CREATE TABLE lake.t(id BIGINT, p VARCHAR)");
  for (int commit = 0; commit < 20; ++commit) {
    session.Run("INSERT INTO lake.t SELECT i, 'p' || i FROM range(" + std::to_string(commit * 10) +
                ", " + std::to_string(commit * 10 + 10) + ") r(i)");
  }
  session.Run("DELETE FROM lake.t WHERE id = 150");
  const auto pruned = [] { return NativeMetadataManager::CurrentStatus().inlined_rows_pruned; };
  EXPECT_EQ(NativeMetadataManager::CurrentStatus().inlined_filter_reason, "");
  uint64_t before = pruned();
  EXPECT_EQ(session.Query("SELECT p FROM lake.t WHERE id = 77"), (Rows{{"p77"}}));
  EXPECT_EQ(pruned() - before, 198u) << "199 live rows, one matches";
  before = pruned();
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t WHERE id BETWEEN 100 AND 199"),
            (Rows{{"99"}}));
  EXPECT_EQ(pruned() - before, 100u);
  // The batches' summaries rule the other batches out unread: the point
  // query reads one batch of 20, the range query ten.
  const auto skipped = [] {
    return NativeMetadataManager::CurrentStatus().inlined_batches_skipped;
  };
  before = skipped();
  EXPECT_EQ(session.Query("SELECT p FROM lake.t WHERE id = 77"), (Rows{{"p77"}}));
  EXPECT_EQ(skipped() - before, 19u);
  before = skipped();
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t WHERE id >= 100"), (Rows{{"99"}}));
  EXPECT_EQ(skipped() - before, 10u);
  // A filter the read does not apply itself stays DuckLake's alone.
  before = pruned();
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t WHERE id % 10 = 1"), (Rows{{"20"}}));
  EXPECT_EQ(pruned(), before);
}

// JSON is a type the json extension registers by name; binding it looks the
// name up in every attached catalog, this lake's metadata catalog among them.
// That lookup once ran under the transaction's lock the read held, and the
// read of a JSON column's inlined rows never returned.
TEST(InlinedReads, OfATypeAnExtensionNamesReturn) {
  TempDir dir;
  DuckLakeSession session;
  Attach(session, dir.path("lake"), "");
  session.Run("CREATE TABLE lake.j(id INTEGER, doc JSON)");
  session.Run("INSERT INTO lake.j VALUES (1, '{\"a\": 1}'), (2, NULL)");
  const uint64_t before = NativeInlinedReads();
  // A deadlock cannot be interrupted: past the deadline the test process
  // says why and aborts, rather than wait for the tier's timeout.
  std::promise<void> done;
  std::thread watchdog([finished = done.get_future()] {
    if (finished.wait_for(std::chrono::seconds(60)) == std::future_status::timeout) {
      std::fprintf(stderr, "the read of inlined JSON rows has not returned in 60 s\n");
      std::abort();
    }
  });
  const Rows rows = session.Query("SELECT id, doc FROM lake.j ORDER BY id");
  done.set_value();
  watchdog.join();
  EXPECT_EQ(rows, (Rows{{"1", "{\"a\": 1}"}, {"2", "NULL"}}));
  EXPECT_GT(NativeInlinedReads(), before) << "read by DuckLake's SQL, not from the store";
}

}  // namespace
}  // namespace moraine
