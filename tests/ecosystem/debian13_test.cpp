// The extension file where users are: a minimal Debian 13 (trixie) root made
// by Debian's debootstrap (scripts/debian13_root.sh), its own python3 (3.13)
// and the stock `duckdb` wheel for it, and nothing of ours but what each test
// copies into a fresh folder inside the root: moraine.duckdb_extension, the
// pinned stock ducklake.duckdb_extension, run_sql.py and the SQL scripts.
// Everything runs under chroot, so no library of the build machine (Debian
// 12, with moraine's build dependencies installed) can be found by the
// dynamic loader: an extension that needs one fails at LOAD here.
//
// In the root, lake_session.h's session on moraine prints what it prints on
// DuckLake's stock DuckDB-file catalog, a second process that re-attaches
// prints it again, and moraine's errors reach Python as typed exceptions.
//
// Skipped only where a root cannot exist: not root, or no debootstrap.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "ecosystem/lake_session.h"
#include "store/kv_store.h"
#include "support/run_process.h"
#include "util/temp_dir.h"

namespace moraine {
namespace {

// scripts/debian13_root.sh's exit statuses that mean "no root can be made\n// on this machine"
// rather than a failure.
constexpr int kNotRoot = 20;
constexpr int kNoDebootstrap = 21;

struct RootState {
  std::string path;    // the root on the host; empty when there is none
  std::string skip;    // why the tests skip, when they do
  std::string failed;  // the script's output, when it failed
};

// The root, made (or found cached) once per test process.
const RootState& Root() {
  static const RootState state = [] {
    RootState root;
    auto made = test::RunCommand("'" DEBIAN13_ROOT_SCRIPT "' 2>&1 </dev/null");
    if (made.exit_code == kNotRoot || made.exit_code == kNoDebootstrap) {
      root.skip = made.output;
    } else if (made.exit_code != 0) {
      root.failed = made.output;
    } else {
      // The last line is the root; the lines before it are the script's log.
      std::string out = made.output;
      while (!out.empty() && out.back() == '\n') out.pop_back();
      root.path = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
    }
    return root;
  }();
  return state;
}

class Debian13Root : public ::testing::Test {
 protected:
  void SetUp() override {
    const RootState& root = Root();
    if (!root.skip.empty()) GTEST_SKIP() << "no Debian 13 root on this machine: " << root.skip;
    ASSERT_TRUE(root.failed.empty()) << "scripts/debian13_root.sh failed:\n" << root.failed;
    root_ = root.path;
    // A fresh folder inside the root, holding only what a user would have.
    host_dir_ = util::CreateTempDir("moraine-deb13-", root_ + "/tmp");
    dir_ = "/tmp/" + host_dir_.filename().string();
    std::filesystem::copy_file(MORAINE_LOADABLE_EXTENSION, host_dir_ / "moraine.duckdb_extension");
    std::filesystem::copy_file(DUCKLAKE_EXTENSION, host_dir_ / "ducklake.duckdb_extension");
    std::filesystem::copy_file(RUN_SQL_SCRIPT, host_dir_ / "run_sql.py");
  }

  void TearDown() override {
    if (!host_dir_.empty()) std::filesystem::remove_all(host_dir_);
  }

  // The path on the host of `inner`, a path inside the root.
  std::string OnHost(const std::string& inner) const { return root_ + inner; }

  // Runs `script` as <dir>/<name>.sql in the root's python3 with the stock
  // wheel, in a process of its own. The environment is emptied so that
  // nothing of the host's (LD_LIBRARY_PATH, PYTHONPATH) reaches it; /proc is
  // mounted in a mount namespace of the command's own, so it goes away with
  // the command whatever way it ends; `timeout` bounds a hang.
  // `wheel` is the folder of the stock wheel in the root (debian13_root.sh).
  test::ProcessResult RunInRoot(const std::string& name, const std::string& script,
                                const std::string& wheel = "/opt/duckdb-py") const {
    std::ofstream(host_dir_ / (name + ".sql")) << script;
    return test::RunCommand(
        "timeout -k 10 600 unshare --mount --propagation private -- sh -c '"
        "mount -t proc proc \"$0/proc\" && exec chroot \"$0\" /usr/bin/env -i "
        "PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 PYTHONPATH=\"$3\" "
        "python3 \"$1/run_sql.py\" \"$1/$2.sql\"' '" +
        root_ + "' '" + dir_ + "' '" + name + "' '" + wheel + "' 2>&1 </dev/null");
  }

  // The lines that start every script: extensions from the fresh folder
  // only, nothing installed or fetched; moraine loaded by path when asked.
  std::string Prelude(bool with_moraine) const {
    std::string sql = "SET extension_directory = '" + dir_ +
                      "/extensions';\n"
                      "SET autoinstall_known_extensions = false;\n";
    if (with_moraine) sql += "LOAD '" + dir_ + "/moraine.duckdb_extension';\n";
    sql += "LOAD '" + dir_ + "/ducklake.duckdb_extension';\n";
    return sql;
  }

  // `catalog` "moraine": the lake on moraine; "stock": on DuckLake's
  // DuckDB-file catalog, in a session that never loads moraine.
  std::string Attach(const std::string& catalog) const {
    const std::string lake = dir_ + "/" + catalog;
    std::filesystem::create_directories(OnHost(lake + "/files"));
    const std::string target =
        catalog == "moraine" ? "moraine:" + lake + "/lake.moraine" : lake + "/lake.ducklake";
    // One thread: DuckLake's catalog cache has an upstream race with several
    // (see tests/support/ducklake_session.h), whatever the catalog.
    return Prelude(catalog == "moraine") + "SET threads = 1;\nATTACH 'ducklake:" + target +
           "' AS lake (DATA_PATH '" + lake + "/files/');\n";
  }

  struct Run {
    test::ProcessResult writer;  // the process that wrote the lake
    test::ProcessResult reader;  // a second process that re-attached it
  };

  Run Session(const std::string& catalog) {
    Run run;
    run.writer =
        RunInRoot(catalog + "-writer", Attach(catalog) + test::LakeWrites() + test::LakeQueries());
    run.reader = RunInRoot(catalog + "-reader", Attach(catalog) + test::LakeQueries());
    return run;
  }

  // The session's state itself, so that two runs agreeing on nothing fail
  // (the numbers of stock_duckdb_session_test.cpp).
  static void ExpectTheLakesState(const std::string& output) {
    EXPECT_NE(output.find("\n3,5001,"), std::string::npos) << output;
    EXPECT_NE(output.find("\nn,w,c,d,x\n4288,"), std::string::npos) << output;
    EXPECT_NE(output.find(",10,4287,"), std::string::npos) << output;
    EXPECT_NE(output.find("\ndata_files,delete_files\n1,1\n"), std::string::npos) << output;
  }

  std::string root_;                // the root, on the host
  std::filesystem::path host_dir_;  // the fresh folder, on the host
  std::string dir_;                 // the same folder, inside the root
};

TEST_F(Debian13Root, IsDebian13WithItsPython313AndTheStockWheel) {
  std::ifstream version(OnHost("/etc/debian_version"));
  std::string debian;
  std::getline(version, debian);
  EXPECT_EQ(debian.rfind("13.", 0), 0u) << debian;
  auto stock = RunInRoot("version", "SELECT library_version, source_id FROM pragma_version();\n");
  EXPECT_EQ(stock.output, "library_version,source_id\nv1.5.5," DUCKDB_SOURCE_ID "\n");
  auto python = test::RunCommand("chroot '" + root_ +
                                 "' /usr/bin/env -i PATH=/usr/bin:/bin python3 --version 2>&1");
  EXPECT_EQ(python.output.rfind("Python 3.13.", 0), 0u) << python.output;
}

// The root itself works: DuckLake's stock DuckDB-file catalog, without
// moraine, runs the whole session there.
TEST_F(Debian13Root, TheStockDuckLakeRunsTheSession) {
  const Run stock = Session("stock");
  EXPECT_EQ(stock.writer.exit_code, 0) << stock.writer.output;
  EXPECT_EQ(stock.reader.exit_code, 0) << stock.reader.output;
  EXPECT_EQ(stock.reader.output, stock.writer.output) << "a second process sees another lake";
  ExpectTheLakesState(stock.writer.output);
}

TEST_F(Debian13Root, MoraineLoadsAndMatchesTheStockCatalog) {
  const Run moraine = Session("moraine");
  ASSERT_EQ(moraine.writer.exit_code, 0) << moraine.writer.output;
  EXPECT_EQ(moraine.reader.exit_code, 0) << moraine.reader.output;
  const Run stock = Session("stock");
  EXPECT_EQ(stock.writer.exit_code, 0) << stock.writer.output;
  EXPECT_EQ(moraine.writer.output, stock.writer.output) << "moraine and the stock catalog disagree";
  EXPECT_EQ(moraine.reader.output, moraine.writer.output) << "a second process sees another lake";
  ExpectTheLakesState(moraine.writer.output);
}

// moraine's errors reach trixie's Python as the exception classes DuckDB's
// Python API maps their types to, with moraine's sentence in the message.
TEST_F(Debian13Root, MoraineErrorsReachPythonTyped) {
  const std::regex typed("^(\\w+Exception): ((\\w+( \\w+)*) Error: [\\s\\S]*)$");
  // A second writer: the host holds the store's writer lock, the same file
  // lock the process in the root takes.
  {
    auto holder = store::OpenKvStore({.location = OnHost(dir_ + "/moraine/lake.moraine")});
    auto second = RunInRoot("second-writer", Attach("moraine") + "SELECT 1;\n");
    EXPECT_EQ(second.exit_code, 1) << second.output;
    std::smatch match;
    ASSERT_TRUE(std::regex_match(second.output, match, typed)) << second.output;
    EXPECT_EQ(match[1].str(), "IOException") << second.output;
    EXPECT_NE(second.output.find("is already open read-write"), std::string::npos) << second.output;
  }
  auto raise = RunInRoot(
      "raise", Attach("moraine") + "SELECT * FROM moraine_raise_catalog_version('lake');\n");
  EXPECT_EQ(raise.exit_code, 1) << raise.output;
  std::smatch match;
  ASSERT_TRUE(std::regex_match(raise.output, match, typed)) << raise.output;
  EXPECT_EQ(match[1].str(), "InvalidInputException") << raise.output;
  EXPECT_NE(raise.output.find("is one way"), std::string::npos) << raise.output;
}

// Every other supported release's extension loads in that release's stock
// wheel there, and serves a lake: through its DuckLake where one is built on
// this machine, as TYPE moraine otherwise (OTHER_RELEASES, from CMake:
// "<release>|<extension>|<DuckLake or empty>,...").
TEST_F(Debian13Root, EveryOtherReleasesExtensionServesALakeInItsStockWheel) {
  std::stringstream releases(OTHER_RELEASES);
  std::string entry;
  int checked = 0;
  while (std::getline(releases, entry, ',')) {
    const auto bar = entry.find('|'), second_bar = entry.find('|', bar + 1);
    const std::string release = entry.substr(0, bar);
    const std::string extension = entry.substr(bar + 1, second_bar - bar - 1);
    const std::string ducklake = entry.substr(second_bar + 1);
    SCOPED_TRACE(release);
    // DuckDB derives the entry point from the file's name: each release's
    // extension keeps its name, in a folder of its own.
    std::filesystem::create_directories(host_dir_ / release);
    std::filesystem::copy_file(extension, host_dir_ / release / "moraine.duckdb_extension");
    std::string script =
        "SET extension_directory = '" + dir_ + "/extensions-" + release +
        "';\nSET autoinstall_known_extensions = false;\nLOAD '" + dir_ + "/" + release +
        "/moraine.duckdb_extension';\nSELECT library_version FROM pragma_version();\n";
    std::string expected = "library_version\n" + release + "\n";
    if (std::filesystem::exists(ducklake)) {
      std::filesystem::copy_file(ducklake, host_dir_ / release / "ducklake.duckdb_extension");
      const std::string lake = dir_ + "/lake-" + release;
      std::filesystem::create_directories(OnHost(lake + "/files"));
      script += "LOAD '" + dir_ + "/" + release + "/ducklake.duckdb_extension';\n" +
                "ATTACH 'ducklake:moraine:" + lake + "/lake.moraine' AS lake (DATA_PATH '" + lake +
                "/files/');\nCREATE TABLE lake.t (a INTEGER);\n"
                "INSERT INTO lake.t SELECT * FROM range(1, 101);\n"
                "SELECT sum(a) AS total FROM lake.t;\n";
      expected += "total\n5050\n";
    } else {
      script += "ATTACH '" + dir_ + "/store-" + release +
                "' AS c (TYPE moraine);\n"
                "SELECT count(*) AS tables FROM duckdb_tables() WHERE database_name = 'c';\n"
                "SELECT count(*) AS snapshots FROM moraine_log('c');\n";
      expected += "tables\n0\nsnapshots\n0\n";
    }
    auto run = RunInRoot("release-" + release, script, "/opt/duckdb-py-" + release);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    // The rows end the output; before them moraine may say on stderr what of
    // its native manager this DuckLake build leaves off.
    EXPECT_TRUE(
        run.output.size() >= expected.size() &&
        run.output.compare(run.output.size() - expected.size(), expected.size(), expected) == 0)
        << run.output;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace moraine
