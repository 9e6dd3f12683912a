// moraine in a DuckDB release no DuckLake build is known for (DuckDB 2.0.1:
// no fetchable DuckLake compiles against it, docs/research/duckdb-2.0-port.md),
// in that release's stock Python package with nothing of ours but the
// extension, installed from the local repository as a user installs it:
//   - a lake DuckLake wrote (stock DuckDB 1.5.5) attaches as TYPE moraine,
//     and one script — catalog reads with pushed-down filters, a commit made
//     of the SQL DuckLake's own manager sends for an inlined insert, the
//     store tools and the moraine_etcd secret — prints the same bytes in the
//     release as in 1.5.5, each on its own copy of the lake;
//   - DuckLake then reads the release's commit: the rows, the snapshot, a
//     clean moraine_verify;
//   - the release is the pinned one, and moraine's errors reach it typed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine {
namespace {

// Runs `script` in the stock Python package of `venv` (tests/ecosystem/
// run_sql.py: CSV with headers; the first error stops it with status 1).
test::ProcessResult RunPython(const std::string& venv, const std::string& script,
                              const std::string& script_path) {
  std::ofstream(script_path) << script;
  return test::RunCommand(venv + "/bin/python " RUN_SQL_SCRIPT " '" + script_path + "' 2>&1");
}

class ExtensionOnlyRelease : public ::testing::Test {
 protected:
  // moraine from the repository, extensions kept out of the user's home.
  std::string Prelude(const std::string& name) const {
    return "SET extension_directory = '" + dir_.path("extensions-" + name) +
           "';\n"
           "SET autoinstall_known_extensions = false;\n"
           "INSTALL moraine FROM '" MORAINE_EXTENSION_REPOSITORY "';\nLOAD moraine;\n";
  }

  // DuckLake in stock DuckDB 1.5.5 on the lake at `lake`; a new lake gets
  // `data_path`, an existing one keeps the path it was made with.
  test::ProcessResult DuckLake(const std::string& lake, const std::string& sql,
                               const std::string& name, const std::string& data_path = "") {
    const std::string options = data_path.empty() ? "" : " (DATA_PATH '" + data_path + "')";
    return RunPython(WRITER_VENV,
                     Prelude(name) + "LOAD '" WRITER_DUCKLAKE "';\nATTACH 'ducklake:moraine:" +
                         lake + "/lake.moraine' AS lake" + options + ";\n" + sql,
                     dir_.path(name + ".sql"));
  }

  // The script both releases run on their copy of the lake, as TYPE moraine.
  std::string CatalogScript(const std::string& lake, const std::string& name) const {
    const std::string reads =
        "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id "
        "FROM c.ducklake_snapshot WHERE snapshot_id >= 1 ORDER BY ALL;\n"
        "SELECT * FROM c.ducklake_snapshot_changes ORDER BY ALL;\n"
        "SELECT table_id, begin_snapshot, end_snapshot, table_name FROM c.ducklake_table "
        "WHERE end_snapshot IS NULL ORDER BY ALL;\n"
        "SELECT column_id, column_name, column_type FROM c.ducklake_column "
        "WHERE table_id = 1 AND end_snapshot IS NULL ORDER BY ALL;\n"
        "SELECT * FROM c.ducklake_table_stats;\n"
        "SELECT row_id, begin_snapshot, a, b FROM c.ducklake_inlined_data_1_1 "
        "WHERE end_snapshot IS NULL AND row_id BETWEEN 1 AND 3 ORDER BY row_id;\n"
        "SELECT count(*) AS n FROM c.ducklake_inlined_data_1_1 WHERE begin_snapshot = 2;\n";
    // What DuckLake's SQL manager sends for an inlined insert of two rows.
    const std::string commit =
        "BEGIN;\n"
        "INSERT INTO c.ducklake_snapshot VALUES (3, NOW(), 1, 2, 1);\n"
        "INSERT INTO c.ducklake_snapshot_changes VALUES "
        "(3, 'inlined_insert:1', 'ecosystem', 'an inlined insert', NULL);\n"
        "INSERT INTO c.ducklake_inlined_data_1_1 VALUES (3, 3, NULL, 4, 'four'), "
        "(4, 3, NULL, 5, 'five');\n"
        "UPDATE c.ducklake_table_stats SET record_count = 5, next_row_id = 5 WHERE table_id = 1;\n"
        "UPDATE c.ducklake_table_column_stats SET max_value = '5' "
        "WHERE table_id = 1 AND column_id = 1;\n"
        "COMMIT;\n";
    const std::string tools =
        "SELECT count(*) AS violations FROM moraine_verify('c');\n"
        "SELECT count(*) AS snapshots FROM moraine_log('c');\n"
        "SELECT count(*) AS columns_at_2 FROM moraine_schema('c', 't', at => 2);\n"
        "SELECT count(*) AS columns_now FROM moraine_schema('c', 't');\n"
        "CALL moraine_tag('c', 'kept', snapshot => 2, author => 'ecosystem');\n"
        "SELECT name, snapshot_id, author FROM moraine_tags('c');\n"
        "SELECT moraine_tag_snapshot('c', 'kept') AS tagged;\n"
        "CREATE SECRET lake_etcd (TYPE moraine_etcd, ENDPOINTS '127.0.0.1:2379', "
        "USER 'writer', PASSWORD 'hidden-pw');\n"
        "SELECT name, type, provider, secret_string LIKE '%hidden-pw%' AS shown, "
        "secret_string LIKE '%127.0.0.1:2379%' AS scoped FROM duckdb_secrets();\n";
    return Prelude(name) + "ATTACH '" + lake + "/lake.moraine' AS c (TYPE moraine);\n" + reads +
           commit + reads + tools;
  }

  test::TempDir dir_;
};

TEST_F(ExtensionOnlyRelease, ALakeDuckLakeWroteReadsAndCommitsAsIn155) {
  const std::string written = dir_.path("written");
  std::filesystem::create_directories(written + "/files");
  auto writer = DuckLake(written,
                         "CREATE TABLE lake.t (a INTEGER, b VARCHAR);\n"
                         "INSERT INTO lake.t VALUES (1, 'one'), (2, NULL), (3, 'three');\n",
                         "writer", written + "/files/");
  ASSERT_EQ(writer.exit_code, 0) << writer.output;

  // Each release on a copy of the lake DuckLake wrote.
  const std::string in_155 = dir_.path("in-1.5.5"), in_release = dir_.path("in-" DUCKDB_RELEASE);
  std::filesystem::copy(written, in_155, std::filesystem::copy_options::recursive);
  std::filesystem::copy(written, in_release, std::filesystem::copy_options::recursive);
  auto old_release =
      RunPython(WRITER_VENV, CatalogScript(in_155, "old"), dir_.path("catalog-old.sql"));
  ASSERT_EQ(old_release.exit_code, 0) << old_release.output;
  auto release =
      RunPython(RELEASE_VENV, CatalogScript(in_release, "new"), dir_.path("catalog-new.sql"));
  ASSERT_EQ(release.exit_code, 0) << release.output;
  EXPECT_EQ(release.output, old_release.output);
  // The state itself, so that agreement on nothing cannot pass.
  EXPECT_NE(release.output.find("row_id,begin_snapshot,a,b\n1,2,2,NULL\n2,2,3,three\n3,3,4,four\n"),
            std::string::npos)
      << release.output;
  EXPECT_NE(release.output.find("\n3,inlined_insert:1,ecosystem,an inlined insert,NULL\n"),
            std::string::npos)
      << release.output;
  EXPECT_NE(release.output.find("violations\n0\n"), std::string::npos) << release.output;
  EXPECT_NE(release.output.find("name,snapshot_id,author\nkept,2,ecosystem\ntagged\n2\n"),
            std::string::npos)
      << release.output;
  EXPECT_NE(release.output.find("\nlake_etcd,moraine_etcd,config,False,True\n"), std::string::npos)
      << release.output;

  // DuckLake reads what the release committed.
  auto reader = DuckLake(in_release,
                         "SELECT a, b FROM lake.t ORDER BY a;\n"
                         "SELECT snapshot_id, author FROM lake.snapshots() ORDER BY ALL;\n"
                         "SELECT count(*) AS violations FROM moraine_verify('lake');\n"
                         "CALL ducklake_expire_snapshots('lake', older_than => now());\n"
                         "SELECT snapshot_id AS kept FROM lake.snapshots() ORDER BY ALL;\n",
                         "reader");
  ASSERT_EQ(reader.exit_code, 0) << reader.output;
  EXPECT_NE(reader.output.find("a,b\n1,one\n2,NULL\n3,three\n4,four\n5,five\n"), std::string::npos)
      << reader.output;
  EXPECT_NE(reader.output.find("\n3,ecosystem\n"), std::string::npos) << reader.output;
  EXPECT_NE(reader.output.find("violations\n0\n"), std::string::npos) << reader.output;
  // The tag the release made holds snapshot 2 through DuckLake's expiry.
  EXPECT_NE(reader.output.find("kept\n2\n3\n"), std::string::npos) << reader.output;
}

// A rollback made in the release (TYPE moraine, no DuckLake there) is an
// ordinary snapshot to DuckLake in 1.5.5: the head reads the snapshot rolled
// back to, time travel the one before.
TEST_F(ExtensionOnlyRelease, ARollbackInTheReleaseIsReadByDuckLake) {
  const std::string lake = dir_.path("rolled");
  std::filesystem::create_directories(lake + "/files");
  auto writer = DuckLake(lake,
                         "CREATE TABLE lake.t (a INTEGER, b VARCHAR);\n"
                         "INSERT INTO lake.t VALUES (1, 'one'), (2, NULL), (3, 'three');\n",
                         "rolled-writer", lake + "/files/");
  ASSERT_EQ(writer.exit_code, 0) << writer.output;
  auto release = RunPython(RELEASE_VENV,
                           Prelude("rollback") + "ATTACH '" + lake +
                               "/lake.moraine' AS c (TYPE moraine);\n"
                               "SELECT * FROM moraine_rollback('c', to_snapshot => 1);\n",
                           dir_.path("rollback.sql"));
  ASSERT_EQ(release.exit_code, 0) << release.output;
  EXPECT_NE(release.output.find("snapshot_id,ended_versions,revived_versions\n3,3,0\n"),
            std::string::npos)
      << release.output;
  auto reader = DuckLake(lake,
                         "SELECT count(*) AS now FROM lake.t;\n"
                         "SELECT count(*) AS before FROM lake.t AT (VERSION => 2);\n"
                         "SELECT count(*) AS violations FROM moraine_verify('lake');\n",
                         "rolled-reader");
  ASSERT_EQ(reader.exit_code, 0) << reader.output;
  EXPECT_NE(reader.output.find("now\n0\nbefore\n3\nviolations\n0\n"), std::string::npos)
      << reader.output;
}

TEST_F(ExtensionOnlyRelease, TheStockPackageIsThePinnedRelease) {
  auto result =
      RunPython(RELEASE_VENV,
                Prelude("version") + "SELECT library_version, source_id FROM pragma_version();\n",
                dir_.path("version.sql"));
  EXPECT_EQ(result.output, "library_version,source_id\n" DUCKDB_RELEASE "," DUCKDB_SOURCE_ID "\n");
}

// An error moraine raises inside the release's extension reaches Python as a
// typed DuckDB error with moraine's sentence, not as an internal error.
TEST_F(ExtensionOnlyRelease, ErrorsReachTheReleaseTyped) {
  const std::string not_a_store = dir_.path("not-a-store");
  std::ofstream(not_a_store) << "a file, not a store\n";
  auto result = RunPython(RELEASE_VENV,
                          Prelude("error") + "ATTACH '" + not_a_store + "' AS c (TYPE moraine);\n",
                          dir_.path("error.sql"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output.find("InternalException"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find(not_a_store), std::string::npos) << result.output;
}

}  // namespace
}  // namespace moraine
