// The DuckLake session of lake_session.h in the stock DuckDB CLI, Python and
// Node of a supported release (compiled once per release, see CMakeLists.txt),
// with moraine installed as a user installs it:
//   - in each front end, the lake on moraine and the lake on DuckLake's stock
//     DuckDB-file catalog print the same state;
//   - a second process that re-attaches prints the same state again;
//   - the CLI, Python and Node print the same bytes;
//   - the extension file copied alone into a fresh directory, loaded by path
//     (and installed from that file in the second process), does the same.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "ecosystem/lake_session.h"
#include "ecosystem/stock_duckdb.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

using test::FrontEnd;
using test::MoraineFrom;

class StockDuckDBSession : public ::testing::Test {
 protected:
  struct Run {
    std::string writer;  // output of the process that wrote the lake
    std::string reader;  // output of a second process that re-attached it
  };

  // In `front_end`, moraine from the repository and a lake of its own named
  // `name`, attached as `lake` with every insert written to a file, then
  // `statements`; the run's output, whose exit the test expects to be 0.
  std::string InEachFrontEndsLake(FrontEnd front_end, const std::string& name,
                                  const std::string& statements) {
    const std::string lake = dir_.path(name);
    const std::string script =
        test::Prelude(dir_.path("extensions-" + name), MoraineFrom::kRepository,
                      MORAINE_EXTENSION_REPOSITORY) +
        "ATTACH 'ducklake:moraine:" + lake + "/lake.moraine' AS lake (DATA_PATH '" + lake +
        "/files/', DATA_INLINING_ROW_LIMIT 0);\n" + statements;
    const auto result = test::RunStock(front_end, script, dir_.path(name + ".sql"));
    EXPECT_EQ(result.exit_code, 0) << name << ":\n" << result.output;
    return result.output;
  }

  // Writes the lake in one process and reads it back in a second one.
  // `catalog` is "moraine" or "stock".
  Run Session(FrontEnd front_end, const std::string& catalog, MoraineFrom writer_from,
              MoraineFrom reader_from, const std::string& extension) {
    const std::string name = std::string(Name(front_end)) + "-" + catalog + "-" +
                             std::to_string(static_cast<int>(writer_from));
    const std::string lake = dir_.path(name);
    std::filesystem::create_directories(lake + "/files");
    const std::string target =
        catalog == "moraine" ? "moraine:" + lake + "/lake.moraine" : lake + "/lake.ducklake";
    const std::string attach = "SET threads = 1;\nATTACH 'ducklake:" + target +
                               "' AS lake (DATA_PATH '" + lake + "/files/');\n";
    const std::string extensions = dir_.path("extensions-" + name);
    Run run;
    auto writer = test::RunStock(front_end,
                                 test::Prelude(extensions, writer_from, extension) + attach +
                                     test::LakeWrites() + test::LakeQueries(),
                                 lake + "/writer.sql");
    EXPECT_EQ(writer.exit_code, 0) << name << " writer:\n" << writer.output;
    auto reader = test::RunStock(
        front_end, test::Prelude(extensions, reader_from, extension) + attach + test::LakeQueries(),
        lake + "/reader.sql");
    EXPECT_EQ(reader.exit_code, 0) << name << " reader:\n" << reader.output;
    return {writer.output, reader.output};
  }

  // Every test needs the release's DuckLake, which for a release no registry
  // serves is built on this machine from a fetched source, or is not there.
  void SetUp() override {
    if (!std::filesystem::exists(DUCKLAKE_EXTENSION)) {
      GTEST_SKIP() << "no DuckLake for DuckDB " DUCKDB_RELEASE " on this machine ("
                   << DUCKLAKE_EXTENSION
                   << "): run scripts/setup.sh with MORAINE_DUCKLAKE_GIT naming a git directory "
                      "of duckdb/ducklake";
    }
  }

  Run FromRepository(FrontEnd front_end, const std::string& catalog) {
    return Session(front_end, catalog, MoraineFrom::kRepository, MoraineFrom::kRepository,
                   MORAINE_EXTENSION_REPOSITORY);
  }

  test::TempDir dir_;
};

// SET threads = 1 above: DuckLake's catalog cache has an upstream race with
// several threads (see tests/support/ducklake_session.h), whatever the catalog.
TEST_F(StockDuckDBSession, MoraineMatchesTheStockCatalogInTheCliPythonAndNode) {
  const Run cli = FromRepository(FrontEnd::kCli, "moraine");
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython, FrontEnd::kNode}) {
    const Run moraine = front_end == FrontEnd::kCli ? cli : FromRepository(front_end, "moraine");
    const Run stock = FromRepository(front_end, "stock");
    EXPECT_EQ(moraine.writer, stock.writer)
        << Name(front_end) << ": moraine and the stock catalog disagree";
    EXPECT_EQ(moraine.reader, moraine.writer)
        << Name(front_end) << ": a second process sees another lake";
    EXPECT_EQ(stock.reader, stock.writer) << Name(front_end);
    EXPECT_EQ(moraine.writer, cli.writer)
        << Name(front_end) << " and the CLI print different states";
  }

  // The state itself, so that agreement on nothing cannot pass: 5,001 rows
  // after the big insert, then the totals at head (4,288 rows after the
  // DELETE; c set on the 9 surviving updated rows and by default on 6000; d
  // kept its initial default on the rows that existed when it was added).
  EXPECT_NE(cli.writer.find("\n3,5001,"), std::string::npos) << cli.writer;
  EXPECT_NE(cli.writer.find("\nn,w,c,d,x\n4288,"), std::string::npos) << cli.writer;
  EXPECT_NE(cli.writer.find(",10,4287,"), std::string::npos) << cli.writer;
  // One Parquet file (the 5,000 rows; the other inserts were inlined) and the
  // DELETE's delete file.
  EXPECT_NE(cli.writer.find("\ndata_files,delete_files\n1,1\n"), std::string::npos) << cli.writer;
}

TEST_F(StockDuckDBSession, TheExtensionFileAloneInAFreshDirectoryLoadsIntoPython) {
  test::TempDir fresh;
  const std::string file = fresh.path("moraine.duckdb_extension");
  std::filesystem::copy_file(MORAINE_LOADABLE_EXTENSION, file);
  const Run alone = Session(FrontEnd::kPython, "moraine", MoraineFrom::kLoadFile,
                            MoraineFrom::kInstallFile, file);
  const Run stock = FromRepository(FrontEnd::kPython, "stock");
  EXPECT_EQ(alone.writer, stock.writer);
  EXPECT_EQ(alone.reader, stock.writer);
  EXPECT_NE(alone.writer.find("\n3,5001,"), std::string::npos) << alone.writer;
}

// moraine's native DuckLake metadata manager registers in the stock front ends
// (DuckLake's own binary, loaded by the host) and answers; off, it does not.
TEST_F(StockDuckDBSession, TheNativeMetadataManagerAnswersInEveryStockFrontEnd) {
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython, FrontEnd::kNode}) {
    for (const std::string options : {"", ", META_NATIVE_MANAGER false"}) {
      const std::string name = std::string(Name(front_end)) + (options.empty() ? "-on" : "-off");
      const std::string lake = dir_.path("native-" + name);
      const std::string script =
          test::Prelude(dir_.path("extensions-native-" + name), MoraineFrom::kRepository,
                        MORAINE_EXTENSION_REPOSITORY) +
          "ATTACH 'ducklake:moraine:" + lake + "/lake.moraine' AS lake (DATA_PATH '" + lake +
          "/files/'" + options + ");\n" +
          "CREATE TABLE lake.t(a INTEGER);\n"
          "INSERT INTO lake.t VALUES (1);\n"
          "ALTER TABLE lake.t ADD COLUMN b VARCHAR;\n"
          "INSERT INTO lake.t VALUES (2, 'two');\n"
          "SELECT count(*) AS n FROM lake.t;\n"
          "SELECT state, (native_snapshot_reads > 0)::INTEGER AS snapshots, "
          "(native_catalog_reads > 0)::INTEGER AS catalogs, "
          "(ducklake_build LIKE '% for DuckDB " DUCKDB_RELEASE
          "')::INTEGER AS known_build, "
          "coalesce(kept_methods, 'none') AS kept FROM moraine_native_manager();\n";
      const auto result = test::RunStock(front_end, script, dir_.path(name + ".sql"));
      EXPECT_EQ(result.exit_code, 0) << name << ":\n" << result.output;
      const std::string answered = options.empty() ? "1,1" : "0,0";
      EXPECT_NE(result.output.find("n\n2\n"), std::string::npos) << name << ":\n" << result.output;
      // The loaded DuckLake is one of the builds moraine knows for this
      // release, and every method moraine replaces is in it.
      EXPECT_NE(result.output.find("state,snapshots,catalogs,known_build,kept\nregistered," +
                                   answered + ",1,none\n"),
                std::string::npos)
          << name << ":\n"
          << result.output;
    }
  }
}

// A protected tag in each stock front end: made, kept through DuckLake's
// expiry by time and its cleanup, read back at the tag.
TEST_F(StockDuckDBSession, AProtectedTagOutlivesExpiryAndCleanupInEveryStockFrontEnd) {
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython, FrontEnd::kNode}) {
    const std::string name = std::string("tags-") + Name(front_end);
    const std::string output = InEachFrontEndsLake(
        front_end, name,
        "CREATE TABLE lake.t(a INTEGER);\n"
        "INSERT INTO lake.t VALUES (1);\n"
        "CALL moraine_tag('lake', 'first');\n"
        "DELETE FROM lake.t;\n"
        "INSERT INTO lake.t VALUES (2);\n"
        "CALL ducklake_expire_snapshots('lake', older_than => now());\n"
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true);\n"
        "SELECT a AS at_tag FROM lake.t AT (VERSION => moraine_tag_snapshot('lake', 'first'));\n"
        "SELECT count(*) AS snapshots FROM lake.snapshots();\n");
    EXPECT_NE(output.find("at_tag\n1\nsnapshots\n2\n"), std::string::npos) << name << ":\n"
                                                                           << output;
  }
}

// A rollback and an undrop in each stock front end, and the lake's expiry and
// cleanup after them: what the head reads stays readable.
TEST_F(StockDuckDBSession, ARollbackAndAnUndropWorkInEveryStockFrontEnd) {
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython, FrontEnd::kNode}) {
    const std::string name = std::string("rollback-") + Name(front_end);
    const std::string output = InEachFrontEndsLake(
        front_end, name,
        "CREATE TABLE lake.t(a INTEGER);\n"
        "INSERT INTO lake.t VALUES (1);\n"
        "DELETE FROM lake.t;\n"
        "ALTER TABLE lake.t ADD COLUMN b VARCHAR;\n"
        "INSERT INTO lake.t VALUES (2, 'two');\n"
        "SELECT snapshot_id AS rolled FROM moraine_rollback('lake', to_snapshot => 2);\n"
        "DROP TABLE lake.t;\n"
        "SELECT snapshot_id AS undropped FROM moraine_undrop('lake', 't');\n"
        "CALL ducklake_expire_snapshots('lake', older_than => now());\n"
        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true);\n"
        "SELECT string_agg(a::VARCHAR, ',') AS rows, count(*) AS n FROM lake.t;\n");
    for (const std::string expected : {"rolled\n6\n", "undropped\n8\n", "rows,n\n1,1\n"}) {
      EXPECT_NE(output.find(expected), std::string::npos) << name << ":\n" << output;
    }
  }
}

// A commit that lost its race to a commit on another table is moved onto the
// new head in the store (commit/rows/snapshot_rebase.h) in the stock Python
// package, with DuckLake's own binary of this release: the lake then holds at
// every snapshot what DuckLake's own retry leaves (the same script with the
// native manager off).
TEST_F(StockDuckDBSession, ACommitThatLostToAnotherTableIsRebasedInTheStockPython) {
  auto lost_race = [&](const std::string& name, const std::string& options) {
    const std::string lake = dir_.path("race-" + name);
    const std::string script =
        test::Prelude(dir_.path("extensions-race-" + name), MoraineFrom::kRepository,
                      MORAINE_EXTENSION_REPOSITORY) +
        "ATTACH 'ducklake:moraine:" + lake + "/lake.moraine' AS lake (DATA_PATH '" + lake +
        "/files/'" + options +
        ");\n"
        "CREATE TABLE lake.t (i INTEGER);\n"
        "CREATE TABLE lake.u (i INTEGER);\n"
        "INSERT INTO lake.t VALUES (1);\n"
        "BEGIN;\n"
        "INSERT INTO lake.t VALUES (7);\n"
        "-- connection: other\n"
        "INSERT INTO lake.u VALUES (11);\n"
        "COMMIT;\n"
        "SELECT rebase::INTEGER AS rebase, rebased_commits FROM moraine_native_manager();\n"
        "FROM lake.last_committed_snapshot();\n"
        "SELECT snapshot_id, changes FROM lake.snapshots() ORDER BY snapshot_id;\n"
        "SELECT 4, count(*), sum(i) FROM lake.t AT (VERSION => 4) UNION ALL "
        "SELECT 5, count(*), sum(i) FROM lake.t AT (VERSION => 5) UNION ALL "
        "SELECT 5, count(*), sum(i) FROM lake.u AT (VERSION => 5) ORDER BY ALL;\n";
    auto result = test::RunStock(FrontEnd::kPython, script, dir_.path("race-" + name + ".sql"));
    EXPECT_EQ(result.exit_code, 0) << name << ":\n" << result.output;
    return result.output;
  };
  const std::string native = lost_race("on", "");
  const std::string sql = lost_race("off", ", META_NATIVE_MANAGER false");
  const std::string counters = "rebase,rebased_commits\n";
  ASSERT_NE(native.find(counters + "1,1\n"), std::string::npos) << native;
  // The rebase is possible in the process either way; the off run's commit
  // was DuckLake's own retry.
  ASSERT_NE(sql.find(counters + "1,0\n"), std::string::npos) << sql;
  const auto after_counters = [&](const std::string& output) {
    return output.substr(output.find('\n', output.find(counters) + counters.size()));
  };
  EXPECT_EQ(after_counters(native), after_counters(sql));
  // The other connection's insert landed at 4, the rebased one at 5.
  EXPECT_NE(native.find("\n4,1,1\n"), std::string::npos) << native;
  EXPECT_NE(native.find("\n5,2,8\n"), std::string::npos) << native;
}

// make run: scripts/tour.sql in the stock CLI, from a directory that holds
// the local repository, as the Makefile runs it from the build directory.
TEST_F(StockDuckDBSession, TheTourRunsInTheStockCli) {
  std::filesystem::create_directory_symlink(MORAINE_EXTENSION_REPOSITORY, dir_.path("repository"));
  auto tour = test::RunCommand("cd '" + dir_.root().string() +
                               "' && " STOCK_DUCKDB_VENV
                               "/bin/duckdb -unsigned -init /dev/null -bail -f " TOUR_SCRIPT
                               " 2>&1 </dev/null");
  EXPECT_EQ(tour.exit_code, 0) << tour.output;
  EXPECT_NE(tour.output.find("│     3 │ glue    │ shipped │"), std::string::npos) << tour.output;
}

TEST_F(StockDuckDBSession, TheStockDuckDBIsThePinnedRelease) {
  for (FrontEnd front_end : {FrontEnd::kCli, FrontEnd::kPython, FrontEnd::kNode}) {
    auto result =
        test::RunStock(front_end, "SELECT library_version, source_id FROM pragma_version();\n",
                       dir_.path("version.sql"));
    EXPECT_EQ(result.output, "library_version,source_id\n" DUCKDB_RELEASE "," DUCKDB_SOURCE_ID "\n")
        << Name(front_end);
  }
}

}  // namespace
}  // namespace moraine
