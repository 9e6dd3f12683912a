#include "crash/crash_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "commit/migrations/store_format.h"
#include "store/kv_store.h"
#include "support/ducklake_session.h"
#include "support/lake_state.h"
#include "support/run_process.h"
#include "support/store_format_record.h"

namespace moraine::test {
namespace {

namespace fs = std::filesystem;

// MORAINE_TEST_EXECUTABLE points a long soak at a copy of the host, so that a
// rebuild meanwhile does not pull the binary from under it.
const std::string kMoraine = std::getenv("MORAINE_TEST_EXECUTABLE") != nullptr
                                 ? std::getenv("MORAINE_TEST_EXECUTABLE")
                                 : MORAINE_EXECUTABLE;

const std::string kTable = "CREATE TABLE lake.t (i INTEGER, s VARCHAR)";
const std::string kParquetRows = "INSERT INTO lake.t SELECT range, 'p' FROM range(10, 5010)";
const std::string kConcurrentTables =
    "CREATE TABLE lake.c0 (k INTEGER); CREATE TABLE lake.c1 (k INTEGER); "
    "CREATE TABLE lake.c2 (k INTEGER); CREATE TABLE lake.c3 (k INTEGER)";

// The snapshot, file and readability checks, through DuckLake.
void CheckLakeInvariants(const Lake& lake, const CrashCase& crash) {
  DuckLakeSession session;
  session.Run(lake.Attach(", READ_ONLY"));
  const std::string meta = "__ducklake_metadata_lake";
  if (crash.Checks("dense")) {
    EXPECT_EQ(session.Query("SELECT max(snapshot_id) - min(snapshot_id) + 1 = count(*) FROM " +
                            meta + ".ducklake_snapshot"),
              (Rows{{"true"}}));
  }
  if (crash.Checks("readable")) {
    for (const auto& snapshot :
         session.Query("SELECT snapshot_id FROM " + meta + ".ducklake_snapshot ORDER BY 1")) {
      const std::string s = snapshot[0];
      for (const auto& table : session.Query(
               "SELECT table_name FROM " + meta + ".ducklake_table WHERE begin_snapshot <= " + s +
               " AND (end_snapshot IS NULL OR end_snapshot > " + s + ")")) {
        auto result = session.connection().Query("SELECT count(*) FROM lake." + table[0] +
                                                 " AT (VERSION => " + s + ")");
        EXPECT_FALSE(result->HasError())
            << table[0] << " at snapshot " << s << ": " << result->GetError();
      }
    }
  }
  if (crash.Checks("files")) {
    for (const auto& table : session.Query("SELECT table_name FROM " + meta +
                                           ".ducklake_table WHERE end_snapshot IS NULL")) {
      for (const auto& file : session.Query("SELECT data_file, delete_file FROM "
                                            "ducklake_list_files('lake', '" +
                                            table[0] + "')")) {
        for (const auto& path : file) {
          if (path != "NULL") {
            EXPECT_TRUE(fs::exists(path)) << "missing " << path;
          }
        }
      }
    }
  }
}

// `state` less the empty inlined data tables and their registry.
std::map<std::string, std::string> WithoutEmptyInlinedTables(
    std::map<std::string, std::string> state) {
  std::erase_if(state, [](const auto& entry) {
    return entry.first == "ducklake_inlined_data_tables" ||
           (entry.first.starts_with("ducklake_inlined_data_") && entry.second == "0");
  });
  return state;
}

size_t CountAcknowledged(const std::string& output, const std::string& line) {
  size_t count = 0;
  for (size_t at = output.find(line); at != std::string::npos; at = output.find(line, at + 1)) {
    ++count;
  }
  return count;
}

std::string Armed(const std::string& point, bool power_cut) {
  return "MORAINE_TEST_CRASH_AT=" + point + (power_cut ? " MORAINE_TEST_POWER_CUT=1 " : " ");
}

// `moraine sql` running `statements`, each followed by a line of its own
// once acknowledged.
std::string SqlChild(const Lake& lake, const std::vector<std::string>& statements) {
  std::string sql = lake.Attach();
  for (const auto& statement : statements)
    sql += "; " + statement + "; SELECT 'acknowledged' AS ack";
  return kMoraine + " sql --csv -c \"" + sql + "\"";
}

// Runs `command` armed at `point`; true when it died there (`died`) or, for a
// point that need not be reached, ran to its end.
bool RunToThePoint(const std::string& command, const CrashCase& crash, std::string& output,
                   bool& died) {
  const auto child = RunCommand(Armed(crash.point, crash.power_cut) + command + " 2>&1");
  output = child.output;
  died = child.exit_code == 128 + 9;
  if (died) return true;
  if (!crash.point_must_be_reached && child.exit_code == 0) return true;
  ADD_FAILURE() << "the child did not die at " << crash.point << ":\n" << child.output;
  return false;
}

void CheckVerifies(const Lake& lake) {
  const auto verify = RunCommand(kMoraine + " verify " + lake.store() + " 2>&1");
  EXPECT_EQ(verify.exit_code, 0) << verify.output;
}

// A second run of `tool` (migrate, repair) on a store a cut interrupted it
// on exits 0 and leaves what the setup made, nothing lost.
void CheckASecondRunFinishes(const Lake& crashed, const CrashWorkload& workload,
                             const std::string& tool) {
  const auto again = RunCommand(kMoraine + " " + tool + " " + crashed.store() + " 2>&1");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  Lake replay;
  replay.Run(workload.setup, workload.setup.size());
  EXPECT_EQ(StateOf(crashed), StateOf(replay));
}

// A migrate cut short: format 0 or 1, never in between.
void CheckMigrateFormat(const Lake& crashed) {
  auto store = store::OpenKvStore({.location = crashed.store(), .read_only = true});
  const auto format = commit::ReadStoreFormat(*store->GetSnapshot());
  EXPECT_TRUE(format == 0u || format == commit::kStoreFormatVersion) << format.value_or(99);
}

// Connections that each insert 0, 1, 2, ... into a table of their own: each
// table holds every key its connection saw acknowledged, and at most the one
// key after them (the commit the cut interrupted), with no gap.
void CheckConcurrent(const Lake& crashed, const CrashWorkload& workload,
                     const std::string& output) {
  DuckLakeSession session;
  session.Run(crashed.Attach(", READ_ONLY"));
  for (int c = 0; c < workload.connections; ++c) {
    const size_t acknowledged =
        CountAcknowledged(output, "acknowledged " + std::to_string(c) + " ");
    const auto rows = session.Query(
        "SELECT count(*), count(DISTINCT k), coalesce(max(k) + 1, 0) "
        "FROM lake.c" +
        std::to_string(c));
    const size_t count = std::stoul(rows[0][0]);
    EXPECT_EQ(rows[0][0], rows[0][1]) << "a key twice in c" << c;
    EXPECT_EQ(rows[0][0], rows[0][2]) << "a gap in c" << c;
    EXPECT_TRUE(count == acknowledged || count == acknowledged + 1)
        << "c" << c << " holds " << count << " keys, " << acknowledged << " acknowledged";
  }
}

// The serial replays the crashed store must equal one of: the acknowledged
// statements alone, or those and the one the crash interrupted.
void CheckSerialReplay(const Lake& crashed, const CrashCase& crash, const CrashWorkload& workload,
                       size_t acknowledged) {
  const auto state = StateOf(crashed);
  std::vector<std::string> script = workload.setup;
  script.insert(script.end(), workload.statements.begin(), workload.statements.end());
  Lake without, with;
  without.Run(script, workload.setup.size() + acknowledged);
  const auto without_state = StateOf(without);
  bool matched = state == without_state;
  std::string expected = "without the interrupted statement:\n" + Describe(without_state);
  if (!matched && acknowledged < workload.statements.size()) {
    with.Run(script, workload.setup.size() + acknowledged + 1);
    const auto with_state = StateOf(with);
    // A flush of inlined data is two DuckLake commits: the flush, then
    // (DuckLakeTransaction::Commit, DropEmptySupersededInlinedTables) a
    // second transaction that drops the inlined tables it emptied. A kill
    // between them leaves those empty tables registered: whole commits, only
    // not yet the second one.
    matched = state == with_state ||
              WithoutEmptyInlinedTables(state) == WithoutEmptyInlinedTables(with_state);
    expected += "with it:\n" + Describe(with_state);
  }
  EXPECT_TRUE(matched) << acknowledged << " acknowledged; the crashed store:\n"
                       << Describe(state) << "equals neither serial replay, " << expected;
  if (crash.Checks("format")) {
    EXPECT_TRUE(state.at("store format") == std::to_string(commit::kStoreFormatVersion));
  }
}

}  // namespace

bool CrashCase::Checks(const std::string& check) const {
  return std::find(checks.begin(), checks.end(), check) != checks.end();
}

void PrintTo(const CrashCase& crash, std::ostream* out) { *out << crash.point; }

const std::map<std::string, CrashWorkload>& CrashWorkloads() {
  static const std::map<std::string, CrashWorkload> workloads = {
      {"inlined_insert",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"},
        .statements = {"INSERT INTO lake.t VALUES (2, 'b')",
                       "INSERT INTO lake.t VALUES (3, 'c')"}}},
      {"parquet_insert",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"}, .statements = {kParquetRows}}},
      {"add_column",
       {.setup = {kTable, kParquetRows},
        .statements = {"ALTER TABLE lake.t ADD COLUMN j INTEGER DEFAULT 7"}}},
      {"update",
       {.setup = {kTable, kParquetRows},
        .statements = {"UPDATE lake.t SET s = 'u' WHERE i % 2 = 0"}}},
      {"delete",
       {.setup = {kTable, kParquetRows}, .statements = {"DELETE FROM lake.t WHERE i < 100"}}},
      {"inlined_flush",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')",
                  "INSERT INTO lake.t VALUES (3, 'c')"},
        .statements = {"CALL ducklake_flush_inlined_data('lake')"}}},
      {"merge",
       {.setup = {kTable, kParquetRows, kParquetRows, kParquetRows},
        .statements = {"CALL ducklake_merge_adjacent_files('lake')"}}},
      {"expire_cleanup",
       {.setup = {kTable, kParquetRows, "DELETE FROM lake.t", kParquetRows},
        .statements = {"CALL ducklake_expire_snapshots('lake', older_than => now())",
                       "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"}}},
      // Snapshot 2 holds the first rows; the rollback brings back their file
      // (ended by the DELETE) under a new id, ends the later one, and drops
      // the added column.
      {"rollback",
       {.setup = {kTable, kParquetRows, "DELETE FROM lake.t WHERE i < 100", kParquetRows,
                  "ALTER TABLE lake.t ADD COLUMN z INTEGER DEFAULT 7",
                  "INSERT INTO lake.t VALUES (1, 'a', 1)"},
        .statements = {"CALL moraine_rollback('lake', to_snapshot => 2)"}}},
      {"undrop",
       {.setup = {kTable, kParquetRows, "INSERT INTO lake.t VALUES (1, 'a')", "DROP TABLE lake.t"},
        .statements = {"CALL moraine_undrop('lake', 't')"}}},
      {"catalog_version_raise",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"},
        .statements = {"SELECT * FROM moraine_raise_catalog_version('lake', confirm => true)"}}},
      {"migrate",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"}, .child = CrashChild::kMigrate}},
      {"repair",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"}, .child = CrashChild::kRepair}},
      // Three sessions leave three table files; the child's session closes
      // with the fourth, and the compaction they trigger.
      {"compaction",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')",
                  "INSERT INTO lake.t VALUES (2, 'b')"},
        .statements = {"INSERT INTO lake.t VALUES (3, 'c')"},
        .setup_sessions_each = true}},
      // A writer killed before its memtable was flushed; the next open
      // replays its log into a table file and a new manifest.
      {"recovery",
       {.setup = {kTable, "INSERT INTO lake.t VALUES (1, 'a')"},
        .statements = {"INSERT INTO lake.t VALUES (2, 'b')", "INSERT INTO lake.t VALUES (3, 'c')"},
        .first_kill = "close.before_flush@1"}},
      {"concurrent",
       {.setup = {kConcurrentTables},
        .child = CrashChild::kConcurrent,
        .connections = 4,
        .commits = 12}},
      // Many commits of every kind, for kills deep into a session.
      {"mixed",
       {.setup = {kTable},
        .statements = {"INSERT INTO lake.t VALUES (1, 'a')", "INSERT INTO lake.t VALUES (2, 'b')",
                       kParquetRows, "UPDATE lake.t SET s = 'u' WHERE i < 20",
                       "ALTER TABLE lake.t ADD COLUMN j INTEGER DEFAULT 7",
                       "INSERT INTO lake.t VALUES (3, 'c', 9)",
                       "DELETE FROM lake.t WHERE i % 3 = 0",
                       "ALTER TABLE lake.t RENAME COLUMN s TO name",
                       "INSERT INTO lake.t VALUES (4, 'd', 10)",
                       "CALL ducklake_flush_inlined_data('lake')",
                       "ALTER TABLE lake.t DROP COLUMN j", "INSERT INTO lake.t VALUES (5, 'e')"}}},
  };
  return workloads;
}

std::vector<CrashCase> LoadCrashMatrix(const std::string& file, bool power_cut) {
  std::vector<CrashCase> cases;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    CrashCase crash;
    std::string checks;
    std::getline(fields, crash.name, '\t');
    std::getline(fields, crash.point, '\t');
    std::getline(fields, crash.workload, '\t');
    std::getline(fields, checks, '\t');
    std::istringstream words(checks);
    for (std::string word; words >> word;) crash.checks.push_back(word);
    crash.power_cut = power_cut;
    cases.push_back(crash);
  }
  return cases;
}

std::string CrashCaseTestName(const CrashCase& crash) {
  std::string name = crash.name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

CrashOutcome RunCrashCase(const CrashCase& crash) {
  SCOPED_TRACE(crash.name + " (" + crash.point + (crash.power_cut ? ", power cut)" : ")"));
  const CrashWorkload& workload = CrashWorkloads().at(crash.workload);
  Lake crashed;
  if (workload.setup_sessions_each) {
    for (const auto& statement : workload.setup) crashed.Run({statement}, 1);
  } else {
    crashed.Run(workload.setup, workload.setup.size());
  }
  if (workload.child == CrashChild::kMigrate) WriteStoreFormat(crashed.store(), std::nullopt);

  std::string output;
  size_t acknowledged = 0;
  bool died = false;
  switch (workload.child) {
    case CrashChild::kMigrate:
      if (!RunToThePoint(kMoraine + " migrate " + crashed.store(), crash, output, died)) return {};
      CheckMigrateFormat(crashed);
      CheckASecondRunFinishes(crashed, workload, "migrate");
      return {.died = died};
    case CrashChild::kRepair:
      if (!RunToThePoint(kMoraine + " repair " + crashed.store(), crash, output, died)) return {};
      CheckASecondRunFinishes(crashed, workload, "repair");
      CheckVerifies(crashed);
      return {.died = died};
    case CrashChild::kConcurrent: {
      const std::string command = std::string(CONCURRENT_SESSION) + " \"" + crashed.Attach() +
                                  "\" " + std::to_string(workload.connections) + " " +
                                  std::to_string(workload.commits);
      if (!RunToThePoint(command, crash, output, died)) return {};
      CheckConcurrent(crashed, workload, output);
      acknowledged = CountAcknowledged(output, "acknowledged ");
      break;
    }
    case CrashChild::kSql:
      if (!workload.first_kill.empty()) {
        // The writer the recovery recovers from: killed, never cut.
        const CrashCase first{.name = crash.name, .point = workload.first_kill};
        std::string first_output;
        bool first_died = false;
        if (!RunToThePoint(SqlChild(crashed, workload.statements), first, first_output,
                           first_died)) {
          return {};
        }
        acknowledged = CountAcknowledged(first_output, "\nacknowledged\n");
        if (!RunToThePoint(SqlChild(crashed, {"SELECT count(*) FROM lake.t"}), crash, output,
                           died)) {
          return {};
        }
      } else {
        if (!RunToThePoint(SqlChild(crashed, workload.statements), crash, output, died)) return {};
        acknowledged = CountAcknowledged(output, "\nacknowledged\n");
      }
      CheckSerialReplay(crashed, crash, workload, acknowledged);
      break;
  }
  if (crash.Checks("dense") || crash.Checks("readable") || crash.Checks("files")) {
    CheckLakeInvariants(crashed, crash);
  }
  if (crash.Checks("verify")) CheckVerifies(crashed);
  return {.acknowledged = acknowledged, .died = died};
}

void RunCrashSoak(const char* tier, int rounds, const std::vector<std::string>& points,
                  bool power_cut) {
  std::mt19937 rng(std::random_device{}());
  std::vector<std::string> names;
  for (const auto& [name, workload] : CrashWorkloads()) {
    const bool replayable =
        workload.child == CrashChild::kSql || workload.child == CrashChild::kConcurrent;
    if (replayable && name != "catalog_version_raise") names.push_back(name);
  }
  size_t acknowledged = 0, died = 0;
  int round = 0;
  for (; round < rounds; ++round) {
    // Half the rounds cut a long mixed session, the rest a random workload.
    const std::string name = round % 2 == 0 ? "mixed" : names[rng() % names.size()];
    const CrashWorkload& workload = CrashWorkloads().at(name);
    const size_t commits = workload.child == CrashChild::kConcurrent
                               ? size_t(workload.connections * workload.commits)
                               : workload.statements.size();
    // Past the commits too: a file's appends and syncs outnumber them.
    const std::string point =
        points[rng() % points.size()] + "@" + std::to_string(1 + rng() % (2 * commits));
    const CrashOutcome outcome =
        RunCrashCase({.name = "soak " + std::to_string(round) + " " + name,
                      .point = point,
                      .workload = name,
                      .checks = {"acked", "untorn", "dense", "readable", "files", "verify"},
                      .power_cut = power_cut,
                      .point_must_be_reached = false});
    acknowledged += outcome.acknowledged;
    died += outcome.died ? 1 : 0;
    if (::testing::Test::HasFailure()) break;
  }
  // The figure the notes quote: every acknowledged commit was found again
  // (acked) and no store held part of a commit (untorn), or the round failed
  // above.
  std::printf(
      "%s soak: %d rounds (%zu died at their point, the rest ran past it), %zu statements "
      "acknowledged, %s\n",
      tier, round, died, acknowledged, ::testing::Test::HasFailure() ? "FAILED" : "0 lost, 0 torn");
}

}  // namespace moraine::test
