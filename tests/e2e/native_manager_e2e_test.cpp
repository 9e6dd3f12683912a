// moraine's native DuckLake metadata manager (duckdb_shim/native_metadata_
// manager.h) against the pinned DuckLake binary: the ABI facts it binds to
// hold in the file, a vtable that differs is refused with the slot named,
// and a DuckLake session answered natively leaves the same catalog and the
// same results as one answered by DuckLake's SQL.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ducklake_adapter/ducklake_manager_abi.h"
#include "ducklake_adapter/ducklake_module.h"
#include "ducklake_adapter/known_ducklake_builds.h"
#include "ducklake_adapter/latest_inlined_table_result.h"
#include "ducklake_adapter/native_metadata_manager.h"
#include "support/ducklake_session.h"
#include "support/run_process.h"
#include "support/temp_dir.h"

namespace moraine::test {
namespace {

namespace abi = ducklake_adapter::ducklake_abi;
using ducklake_adapter::DuckLakeModule;
using ducklake_adapter::NativeMetadataManager;

// name -> size of every dynamic symbol `file` defines.
std::map<std::string, uint64_t> ExportedSymbols(const std::string& file) {
  const auto listed = RunCommand("nm -D --defined-only -S '" + file + "'");
  EXPECT_EQ(listed.exit_code, 0) << listed.output;
  std::map<std::string, uint64_t> symbols;
  std::istringstream lines(listed.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::vector<std::string> parts;
    for (std::string part; fields >> part;) parts.push_back(part);
    if (parts.size() == 4) symbols[parts[3]] = std::stoull(parts[1], nullptr, 16);
    if (parts.size() == 3) symbols[parts[2]] = 0;
  }
  return symbols;
}

// The binary each known build's ABI file was generated for: the registries'
// DuckLake 1.5.5, and the DuckLake scripts/build_ducklake.sh builds on this
// machine for another release (absent where it could not be built).
std::string BinaryOf(const ducklake_adapter::DuckLakeBuildAbi& build) {
  if (std::string(build.release) == MORAINE_DUCKDB_RELEASE) return MORAINE_DUCKLAKE_EXTENSION;
  return std::string(MORAINE_DEPS_DIR) + "/ducklake-" + build.release +
         "/ducklake.duckdb_extension";
}

// Each generated ABI file against its binary, with nm -D: every slot's
// method is exported, the vtable is exactly that many slots, and every
// method moraine replaces is one of them.
TEST(NativeManagerAbi, EveryKnownBuildsAbiFileIsItsBinary) {
  size_t checked = 0;
  for (const auto& build : ducklake_adapter::kKnownDuckLakeBuilds) {
    const std::string binary = BinaryOf(build);
    if (!std::filesystem::exists(binary)) {
      std::cout << "not on this machine: " << binary << "\n";
      continue;
    }
    SCOPED_TRACE(binary);
    const auto symbols = ExportedSymbols(binary);
    ASSERT_GT(symbols.size(), 1000u);
    std::set<std::string> distinct;
    for (const char* name : build.slots) {
      EXPECT_TRUE(symbols.count(name)) << name;
      distinct.insert(name);
    }
    EXPECT_EQ(distinct.size(), build.slots.size()) << "a method is named for two slots";
    ASSERT_TRUE(symbols.count(abi::kVtableSymbol));
    EXPECT_EQ(symbols.at(abi::kVtableSymbol),
              (abi::kVtableHeaderWords + build.slots.size()) * sizeof(void*));
    for (size_t method = 0; method < abi::kManagerMethodCount; ++method) {
      const char* name = abi::ManagerMethodSymbol(static_cast<abi::ManagerMethod>(method));
      EXPECT_TRUE(distinct.count(name)) << name << " is in no slot";
    }
    for (const char* name :
         {abi::kRegisterSymbol, abi::kConstructorSymbol, abi::kGetConnectionSymbol,
          abi::kRunCommitLoopSymbol, abi::kBuildCatalogForSnapshotSymbol,
          abi::kLatestInlinedTableQuerySymbol, abi::kSubstituteSnapshotPlaceholdersSymbol,
          abi::kSubstituteCatalogPlaceholdersSymbol, abi::kExecuteRetrialsServerSideSymbol}) {
      EXPECT_TRUE(symbols.count(name)) << name;
    }
    ++checked;
  }
  EXPECT_GE(checked, 1u) << "the registries' DuckLake is always there";
}

// The pinned binary's reader the catalog flag's offsets are read from, at its declared size.
TEST(NativeManagerAbi, TheCodeFactsAreOfThePinnedBinary) {
  const auto symbols = ExportedSymbols(MORAINE_DUCKLAKE_EXTENSION);
  ASSERT_TRUE(symbols.count(abi::kExecuteRetrialsServerSideSymbol));
  EXPECT_EQ(symbols.at(abi::kExecuteRetrialsServerSideSymbol),
            abi::kExecuteRetrialsServerSideCode.size());
}

TEST(NativeManagerAbi, TheLoadedDuckLakeIsFoundAmongTheKnownBuilds) {
  DuckLakeSession session;  // loads the pinned DuckLake into this process
  std::string why;
  auto module = DuckLakeModule::Find(&why);
  ASSERT_TRUE(module) << why;
  EXPECT_STREQ(module->build().commit, ducklake_adapter::builds::kDuckLake_d8a1881e_v1_5_5.commit);
  EXPECT_EQ(module->SlotOf(abi::ManagerMethod::kGetSnapshot), 42u);
  EXPECT_EQ(module->SlotOf(abi::ManagerMethod::kLoadDuckLake), 16u);
}

// A build whose vtable is in another order, or of another size, is not the
// loaded DuckLake: the slot or the size is named, and with no build left
// DuckLake's SQL serves, with every build's difference in the reason.
TEST(NativeManagerAbi, AVtableOfAnotherOrderOrSizeIsRefusedWithTheReason) {
  DuckLakeSession session;
  std::string why;
  auto module = DuckLakeModule::Find(&why);
  ASSERT_TRUE(module) << why;
  const auto& pinned = ducklake_adapter::builds::kDuckLake_d8a1881e_v1_5_5;
  std::vector<const char*> swapped(pinned.slots.begin(), pinned.slots.end());
  std::swap(swapped[42], swapped[43]);
  const std::string order_refusal =
      DuckLakeModule::CheckSlots(module->handle(), module->vtable(), swapped);
  EXPECT_NE(order_refusal.find("slot 42 "), std::string::npos) << order_refusal;
  EXPECT_NE(order_refusal.find("holds _ZN6duckdb23DuckLakeMetadataManager11GetSnapshotEv"),
            std::string::npos)
      << order_refusal;

  std::vector<const char*> longer(pinned.slots.begin(), pinned.slots.end());
  longer.push_back(pinned.slots.back());
  const std::string size_refusal =
      DuckLakeModule::CheckSlots(module->handle(), module->vtable(), longer);
  EXPECT_NE(size_refusal.find("vtable is 608 bytes, not the 616 of the declared 75 slots"),
            std::string::npos)
      << size_refusal;

  const ducklake_adapter::DuckLakeBuildAbi others[] = {
      {pinned.commit, pinned.release, swapped, pinned.layout},
      {"0123456789abcdef", pinned.release, longer, pinned.layout}};
  std::string none;
  EXPECT_FALSE(DuckLakeModule::Find(others, &none));
  EXPECT_NE(none.find("is none of the 2 DuckLake builds moraine knows for DuckDB v1.5.5"),
            std::string::npos)
      << none;
  EXPECT_NE(none.find("DuckLake d8a1881e for DuckDB v1.5.5: slot 42 "), std::string::npos) << none;
  EXPECT_NE(none.find("DuckLake 01234567 for DuckDB v1.5.5: the DuckLake metadata manager's "
                      "vtable is 608 bytes"),
            std::string::npos)
      << none;
}

// The offsets of the catalog's retrials flag are used only while the loaded
// reader is, byte for byte, the code they were read from.
TEST(NativeManagerAbi, TheRetrialsFlagReaderIsTheDeclaredCodeAndOtherCodeIsRefused) {
  DuckLakeSession session;
  std::string why;
  auto module = DuckLakeModule::Find(&why);
  ASSERT_TRUE(module) << why;
  EXPECT_EQ(
      module->CheckCode(abi::kExecuteRetrialsServerSideSymbol, abi::kExecuteRetrialsServerSideCode),
      "");
  auto other_offset = abi::kExecuteRetrialsServerSideCode;
  other_offset[11] = 0xea;  // movzbl 0x2ea(%rax): another field
  EXPECT_NE(module->CheckCode(abi::kExecuteRetrialsServerSideSymbol, other_offset)
                .find("is not the code the declared offsets were read from"),
            std::string::npos);
  const std::array<unsigned char, 4> shorter = {0x48, 0x8b, 0x47, 0x78};
  EXPECT_NE(module->CheckCode(abi::kExecuteRetrialsServerSideSymbol, shorter).find("16 bytes"),
            std::string::npos);
}

// DuckLake's last committed snapshot id is written (after a rebased commit)
// only where the code of its reader, found through the exported constructor,
// reads it.
TEST(NativeManagerAbi, TheLastCommittedSnapshotReaderIsTheDeclaredCodeAndOtherCodeIsRefused) {
  DuckLakeSession session;
  std::string why;
  auto module = DuckLakeModule::Find(&why);
  ASSERT_TRUE(module) << why;
  EXPECT_EQ(module->CheckLastCommittedSnapshot(), "");
  // Another place than the one the loaded code reads is refused.
  EXPECT_NE(module
                ->CheckLastCommittedSnapshot(
                    {abi::kTransactionCatalogOffset, abi::kCatalogCommitLockOffset, 0x3b8})
                .find("DuckLakeLastCommittedSnapshotBind does not read an optional_idx at 0x3b8"),
            std::string::npos);
  EXPECT_TRUE(NativeMetadataManager::CurrentStatus().rebase)
      << NativeMetadataManager::CurrentStatus().rebase_reason;
}

TEST(NativeManagerAbi, RegistersOnceDuckLakeIsLoaded) {
  DuckLakeSession session;
  NativeMetadataManager::EnsureRegistered();
  const auto status = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(status.state, NativeMetadataManager::State::kRegistered) << status.reason;
  EXPECT_NE(status.ducklake_path.find("ducklake.duckdb_extension"), std::string::npos);
  EXPECT_EQ(status.ducklake_build, "d8a1881e for DuckDB v1.5.5");
  EXPECT_EQ(status.kept_methods, "");
  const auto rows = session.Query(
      "SELECT state, ducklake_build, coalesce(kept_methods, 'none') FROM moraine_native_manager()");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0],
            (std::vector<std::string>{"registered", "d8a1881e for DuckDB v1.5.5", "none"}));
  EXPECT_EQ(session.Query("SELECT * FROM moraine_native_manager()")[0].size(), 37u);
}

// The manager registers as DuckLake loads, before any ATTACH, so that the
// first ATTACH of a process is answered by it too.
TEST(NativeManagerAbi, RegistersAsDuckLakeLoadsBeforeAnyAttach) {
  DuckLakeSession session;  // moraine registered, then the pinned DuckLake loaded
  const auto status = NativeMetadataManager::CurrentStatus();
  EXPECT_EQ(status.state, NativeMetadataManager::State::kRegistered) << status.reason;
  EXPECT_EQ(status.managers_created, 0u);
}

// A session that touches what GetSnapshot serves: the first snapshot, DDL,
// DML, a schema change, time travel, a conflict-free second connection.
const std::vector<std::string> kSession = {
    "CREATE TABLE lake.t(a INTEGER, b VARCHAR)",
    "INSERT INTO lake.t VALUES (1, 'one'), (2, 'two')",
    "INSERT INTO lake.t VALUES (3, 'three')",
    "ALTER TABLE lake.t ADD COLUMN c DOUBLE",
    "UPDATE lake.t SET c = a * 1.5 WHERE a > 1",
    "DELETE FROM lake.t WHERE a = 1",
    "CREATE SCHEMA lake.s",
    "CREATE TABLE lake.s.u AS SELECT range AS id FROM range(5)",
    "ALTER TABLE lake.t RENAME COLUMN b TO label",
    "ALTER TABLE lake.t DROP COLUMN c",
    "ALTER TABLE lake.t ADD COLUMN d VARCHAR DEFAULT 'dee'",
    "CREATE TABLE lake.n(id INTEGER, s STRUCT(x INTEGER, y STRUCT(z VARCHAR)), l INTEGER[])",
    "INSERT INTO lake.n VALUES (1, {'x': 1, 'y': {'z': 'zed'}}, [1, 2])",
    "COMMENT ON TABLE lake.n IS 'nested'",
    "COMMENT ON COLUMN lake.n.id IS 'the id'",
    "ALTER TABLE lake.n SET PARTITIONED BY (id)",
    "INSERT INTO lake.n VALUES (2, {'x': 2, 'y': {'z': 'zee'}}, [3])",
    "CREATE VIEW lake.v(a_alias) AS SELECT a FROM lake.t",
};

const std::vector<std::string> kReads = {
    "SELECT * FROM lake.t ORDER BY a",
    "SELECT * FROM lake.t AT (VERSION => 2) ORDER BY a",
    "SELECT * FROM lake.t AT (VERSION => 4) ORDER BY a",
    "SELECT count(*) FROM lake.t AT (TIMESTAMP => now())",
    "SELECT count(*), sum(id) FROM lake.s.u",
    "SELECT * FROM lake.n ORDER BY id",
    "SELECT * FROM lake.v ORDER BY ALL",
    "SELECT comment FROM duckdb_tables() WHERE database_name = 'lake' AND table_name = 'n'",
    "SELECT column_name, comment FROM duckdb_columns() WHERE database_name = 'lake' AND table_name "
    "= 'n' ORDER BY ALL",
    "SELECT snapshot_id, schema_version, changes FROM lake.snapshots() ORDER BY 1",
    "SELECT table_id, column_id, column_name, column_type, begin_snapshot, end_snapshot "
    "FROM __ducklake_metadata_lake.ducklake_column ORDER BY ALL",
    "SELECT snapshot_id, schema_version, next_catalog_id, next_file_id "
    "FROM __ducklake_metadata_lake.ducklake_snapshot ORDER BY 1",
    "SELECT table_id, record_count, next_row_id FROM __ducklake_metadata_lake.ducklake_table_stats "
    "ORDER BY 1",
    "SELECT * FROM __ducklake_metadata_lake.ducklake_table_column_stats ORDER BY ALL",
};

std::vector<Rows> RunSession(const std::string& dir, const std::string& options) {
  DuckLakeSession session;
  session.Run("ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (DATA_PATH '" + dir +
              "/files/'" + options + ")");
  for (const auto& statement : kSession) session.Run(statement);
  std::vector<Rows> results;
  for (const auto& read : kReads) results.push_back(session.Query(read));
  return results;
}

uint64_t NativeSnapshotReads() {
  return NativeMetadataManager::CurrentStatus().native_snapshot_reads;
}

uint64_t NativeStatsReads() { return NativeMetadataManager::CurrentStatus().native_stats_reads; }

uint64_t NativeCatalogReads() {
  return NativeMetadataManager::CurrentStatus().native_catalog_reads;
}

uint64_t NativeColumnIdReads() {
  return NativeMetadataManager::CurrentStatus().native_column_id_reads;
}

// How the catalog reads at the head were served, summed per kind.
struct CatalogServing {
  uint64_t hits, rereads, full_reads;
};
CatalogServing CatalogServed() {
  const auto status = NativeMetadataManager::CurrentStatus();
  return {status.catalog_cache_hits, status.catalog_cache_rereads, status.catalog_full_reads};
}

TEST(NativeManager, AnswersDuckLakeAndLeavesWhatDuckLakesSqlLeaves) {
  TempDir native_dir, sql_dir;
  const uint64_t before = NativeSnapshotReads();
  const uint64_t stats_before = NativeStatsReads();
  const uint64_t column_ids_before = NativeColumnIdReads();
  const uint64_t catalogs_before = NativeCatalogReads();
  const auto served_before = CatalogServed();
  const auto native = RunSession(native_dir.path("lake"), "");
  const auto served = CatalogServed();
  // The session's schema changes each advance the catalog kept at the head:
  // re-read by key, not read again from the store.
  EXPECT_GE(served.rereads - served_before.rereads, 5u);
  EXPECT_GE(served.full_reads - served_before.full_reads, 1u) << "the first read at attach";
  EXPECT_LE(served.full_reads - served_before.full_reads, 3u)
      << "only the attach and CREATE SCHEMA read the whole catalog";
  const uint64_t after_native = NativeSnapshotReads();
  const uint64_t stats_after_native = NativeStatsReads();
  // Every DuckLake transaction of the session pins its snapshot natively, and
  // every commit that adds rows reads the table's stats first.
  EXPECT_GE(after_native - before, kSession.size());
  EXPECT_GE(stats_after_native - stats_before, 3u);
  const uint64_t column_ids_after_native = NativeColumnIdReads();
  EXPECT_GE(column_ids_after_native - column_ids_before, 1u) << "ADD COLUMN asks for the next id";
  const uint64_t catalogs_after_native = NativeCatalogReads();
  EXPECT_GE(catalogs_after_native - catalogs_before, 5u) << "every schema change reloads it";

  const auto sql = RunSession(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  EXPECT_EQ(NativeSnapshotReads(), after_native) << "the SQL lake was answered natively";
  EXPECT_EQ(NativeStatsReads(), stats_after_native) << "the SQL lake was answered natively";
  EXPECT_EQ(NativeColumnIdReads(), column_ids_after_native);
  EXPECT_EQ(NativeCatalogReads(), catalogs_after_native);
  EXPECT_EQ(CatalogServed().rereads, served.rereads) << "the SQL lake used the cache";

  ASSERT_EQ(native.size(), sql.size());
  for (size_t i = 0; i < kReads.size(); ++i) EXPECT_EQ(native[i], sql[i]) << kReads[i];
}

// A plain count(*) is answered from DuckLake's catalog (the table's data
// files less their deletions, plus its live inlined rows), which the manager
// reads from the store: the same counts a scan finds, and DuckLake's SQL
// finds, through inlined rows and their deletion, a data file, its deletions
// inlined and in a delete file, a schema change and the file's end.
std::vector<Rows> CountsThroughAHistory(const std::string& dir, const std::string& options) {
  const std::vector<std::string> steps = {
      "CREATE TABLE lake.t(a INTEGER)",
      "INSERT INTO lake.t VALUES (1), (2), (3)",
      "INSERT INTO lake.t SELECT range FROM range(10, 110)",
      "DELETE FROM lake.t WHERE a < 3",
      "DELETE FROM lake.t WHERE a BETWEEN 10 AND 11",
      "DELETE FROM lake.t WHERE a BETWEEN 20 AND 69",
      "ALTER TABLE lake.t ADD COLUMN b VARCHAR",
      "INSERT INTO lake.t VALUES (200, 'two hundred')",
      "DELETE FROM lake.t WHERE a >= 10 AND a < 200",
      "INSERT INTO lake.t VALUES (201, 'two hundred one')",
  };
  DuckLakeSession session;
  session.Run("ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (DATA_PATH '" + dir +
              "/files/'" + options + ")");
  std::vector<Rows> counts;
  for (const auto& step : steps) {
    session.Run(step);
    Rows count = session.Query("SELECT count(*) FROM lake.t");
    // A filter keeps DuckDB from answering from the catalog: a scan counts.
    EXPECT_EQ(count, session.Query("SELECT count(*) FROM lake.t WHERE hash(a) IS NOT NULL"))
        << step;
    counts.push_back(count);
  }
  return counts;
}

TEST(NativeManager, CountStarReadsItsRowCountsFromTheStoreAndCountsWhatAScanCounts) {
  TempDir native_dir, sql_dir;
  auto counted = [] { return NativeMetadataManager::CurrentStatus().native_row_counts; };
  const uint64_t before = counted();
  const auto native = CountsThroughAHistory(native_dir.path("lake"), "");
  const uint64_t after_native = counted();
  EXPECT_GE(after_native - before, 10u) << "a data-file row count for every count(*)";
  const auto sql = CountsThroughAHistory(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  EXPECT_EQ(counted(), after_native) << "the SQL lake was answered natively";
  EXPECT_EQ(native, sql);
}

// The ATTACH of an existing lake asks the store whether it holds a DuckLake
// and reads its settings from it (global, schema and table scoped), and
// DuckLake loads the same settings as from its own query.
TEST(NativeManager, TheAttachOfALakeReadsItsSettingsFromTheStore) {
  auto settings_after_reattach = [](const std::string& dir, const std::string& options) {
    DuckLakeSession session;
    const std::string attach = "ATTACH 'ducklake:moraine:" + dir + "/lake.moraine' AS lake (" +
                               "DATA_PATH '" + dir + "/files/'" + options + ")";
    session.Run(attach);
    session.Run("CREATE TABLE lake.t(a INTEGER)");
    session.Run("CALL lake.set_option('parquet_compression', 'zstd')");
    session.Run("CALL lake.set_option('parquet_row_group_size', '1000', schema => 'main')");
    session.Run("CALL lake.set_option('target_file_size', '1MB', table_name => 't')");
    session.Run("DETACH lake");
    const auto reads = NativeMetadataManager::CurrentStatus().native_attach_reads;
    session.Run(attach);
    const auto answered = NativeMetadataManager::CurrentStatus().native_attach_reads - reads;
    auto rows = session.Query("SELECT option_name, replace(value, '" + dir +
                              "', '<dir>'), scope, scope_entry FROM lake.options() ORDER BY ALL");
    rows.push_back({std::to_string(answered)});
    return rows;
  };
  TempDir native_dir, sql_dir;
  auto native = settings_after_reattach(native_dir.path("lake"), "");
  auto sql = settings_after_reattach(sql_dir.path("lake"), ", META_NATIVE_MANAGER false");
  EXPECT_EQ(native.back(), std::vector<std::string>{"2"}) << "MetadataExists and LoadDuckLake";
  EXPECT_EQ(sql.back(), std::vector<std::string>{"0"});
  native.pop_back();
  sql.pop_back();
  ASSERT_GE(native.size(), 3u);
  EXPECT_EQ(native, sql);
}

// The operator's switch for a whole process: no lake attached in it is
// answered natively, and the function says why.
TEST(NativeManager, MoraineNativeManagerOffTurnsItOffForTheProcess) {
  TempDir dir;
  const std::string sql = "ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") +
                          "' AS lake (DATA_PATH '" + dir.path("files") +
                          "/'); CREATE TABLE lake.t AS SELECT 1 AS a; SELECT state, reason, "
                          "native_snapshot_reads FROM moraine_native_manager();";
  const auto off = RunCommand("MORAINE_NATIVE_MANAGER=off '" + std::string(MORAINE_EXECUTABLE) +
                              "' sql --csv -c \"" + sql + "\" 2>&1");
  ASSERT_EQ(off.exit_code, 0) << off.output;
  EXPECT_NE(off.output.find("refused,turned off by MORAINE_NATIVE_MANAGER=off,0"),
            std::string::npos)
      << off.output;
}

TEST(NativeManager, AVersionThatDoesNotExistIsRefusedInDuckLakesWords) {
  TempDir dir;
  for (const std::string options : {"", ", META_NATIVE_MANAGER false"}) {
    DuckLakeSession session;
    session.Run("ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") + "' AS lake (DATA_PATH '" +
                dir.path("files") + "/'" + options + ")");
    session.Run("CREATE TABLE IF NOT EXISTS lake.t(a INTEGER)");
    const std::string error = session.Error("SELECT * FROM lake.t AT (VERSION => 999)");
    EXPECT_NE(error.find("No snapshot found at version 999"), std::string::npos) << error;
  }
}

TEST(NativeManager, ABadSwitchIsRefusedBeforeAnythingIsCreated) {
  TempDir dir;
  DuckLakeSession session;
  const std::string error = session.Error("ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") +
                                          "' AS lake (DATA_PATH '" + dir.path("files") +
                                          "/', META_NATIVE_MANAGER 'maybe')");
  EXPECT_NE(error.find("maybe"), std::string::npos) << error;
  EXPECT_FALSE(std::filesystem::exists(dir.path("lake.moraine")))
      << "the refused ATTACH made a store";
}

// Attaches the lake in `dir` as `lake`.
void AttachLake(DuckLakeSession& session, const TempDir& dir) {
  session.Run("ATTACH 'ducklake:moraine:" + dir.path("lake.moraine") + "' AS lake (DATA_PATH '" +
              dir.path("files") + "/')");
}

// A commit of a new table or table version builds the catalog at its
// snapshot with DuckLake's six catalog queries (to diff the partition keys);
// the manager answers them from the store. A lake with a macro leaves them to
// DuckLake's SQL, which still commits. (The differential script
// catalog_keys.sql checks the rows these commits write.)
TEST(NativeManager, ACommitOfANewTableVersionReadsTheCatalogQueriesFromTheStore) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir);
  session.Run("CREATE TABLE lake.t(a INTEGER, b INTEGER)");
  session.Run("ALTER TABLE lake.t SET PARTITIONED BY (b)");
  auto answered = [] { return NativeMetadataManager::CurrentStatus().native_catalog_queries; };
  uint64_t before = answered();
  session.Run("ALTER TABLE lake.t ADD COLUMN c VARCHAR");
  EXPECT_EQ(answered() - before, 6u);
  before = answered();
  session.Run("CREATE TABLE lake.u(x INTEGER)");
  EXPECT_EQ(answered() - before, 6u);
  // The partition key was diffed against the one the store holds: one live
  // partition, not a second.
  EXPECT_EQ(session.Query("SELECT count(*) FROM __ducklake_metadata_lake.ducklake_partition_info "
                          "WHERE end_snapshot IS NULL"),
            (Rows{{"1"}}));
  session.Run("CREATE MACRO lake.one() AS 1");
  before = answered();
  session.Run("ALTER TABLE lake.t ADD COLUMN d INTEGER");
  EXPECT_EQ(answered(), before);
  EXPECT_EQ(session.Query("SELECT count(*) FROM lake.t"), (Rows{{"0"}}));
}

// Every commit that inlines rows asks for the table's newest inlined data
// table; the manager answers DuckLake's very text from the store, and nothing
// else that merely looks like it.
TEST(NativeManager, TheNewestInlinedTableOfACommitIsLookedUpInTheStore) {
  TempDir dir;
  DuckLakeSession session;
  AttachLake(session, dir);
  session.Run("CREATE TABLE lake.t(a INTEGER)");
  session.Run("INSERT INTO lake.t VALUES (1)");
  auto looked_up = [] {
    return NativeMetadataManager::CurrentStatus().native_inlined_table_lookups;
  };
  uint64_t before = looked_up();
  session.Run("INSERT INTO lake.t VALUES (2)");
  EXPECT_EQ(looked_up() - before, 1u);
  // After a schema change the rows go to the new version's inlined table.
  session.Run("ALTER TABLE lake.t ADD COLUMN b VARCHAR");
  session.Run("INSERT INTO lake.t VALUES (3, 'three')");
  session.Run("INSERT INTO lake.t VALUES (4, 'four')");
  EXPECT_EQ(session.Query("SELECT a, b FROM lake.t ORDER BY a"),
            (Rows{{"1", "NULL"}, {"2", "NULL"}, {"3", "three"}, {"4", "four"}}));

  std::string why;
  auto module = DuckLakeModule::Find(&why);
  ASSERT_TRUE(module) << why;
  auto text_for = reinterpret_cast<ducklake_adapter::LatestInlinedTableQueryFunction>(
      module->Symbol(abi::kLatestInlinedTableQuerySymbol));
  ASSERT_NE(text_for, nullptr);
  EXPECT_EQ(ducklake_adapter::LatestInlinedTableQueryOf(text_for, text_for(7) + ";"), 7);
  EXPECT_EQ(ducklake_adapter::LatestInlinedTableQueryOf(text_for, text_for(12)), 12);
  EXPECT_EQ(ducklake_adapter::LatestInlinedTableQueryOf(text_for, text_for(7) + " OR true;"),
            std::nullopt);
  std::string other_table = text_for(7);
  other_table.replace(other_table.rfind('7'), 1, "8");
  EXPECT_EQ(ducklake_adapter::LatestInlinedTableQueryOf(text_for, other_table), std::nullopt);
  EXPECT_EQ(ducklake_adapter::LatestInlinedTableQueryOf(text_for, "SELECT 1"), std::nullopt);
}

// The catalog kept at the head is shared by every connection of the process
// and advanced by whichever commits: a reader sees another connection's
// schema changes, tags and drops at its next transaction.
TEST(NativeManager, AnotherConnectionsSchemaChangesReachTheCatalogKeptAtTheHead) {
  TempDir dir;
  DuckLakeSession writer;
  AttachLake(writer, dir);
  writer.Run("CREATE TABLE lake.t(a INTEGER)");
  writer.Run("CREATE TABLE lake.u(x INTEGER)");
  writer.Run("INSERT INTO lake.t VALUES (1)");
  auto reader = writer.host().Connect();
  auto columns = [&](const std::string& table) {
    auto result = reader->Query(
        "SELECT string_agg(column_name || ':' || data_type || ':' || coalesce(comment, ''), ',' "
        "ORDER BY column_index) FROM duckdb_columns() WHERE database_name = 'lake' AND "
        "table_name = '" +
        table + "'");
    EXPECT_FALSE(result->HasError()) << result->GetError();
    return result->GetValue(0, 0).ToString();
  };
  EXPECT_EQ(columns("t"), "a:INTEGER:");
  const auto before = CatalogServed();
  writer.Run("ALTER TABLE lake.t ADD COLUMN b VARCHAR");
  EXPECT_EQ(columns("t"), "a:INTEGER:,b:VARCHAR:");
  writer.Run("ALTER TABLE lake.t RENAME COLUMN a TO id");
  writer.Run("COMMENT ON COLUMN lake.t.b IS 'bee'");
  EXPECT_EQ(columns("t"), "id:INTEGER:,b:VARCHAR:bee");
  EXPECT_EQ(columns("u"), "x:INTEGER:") << "an untouched table kept as it was";
  writer.Run("INSERT INTO lake.t VALUES (2, 'two')");
  auto rows = reader->Query("SELECT string_agg(id || b, ',' ORDER BY id) FROM lake.t");
  ASSERT_FALSE(rows->HasError()) << rows->GetError();
  EXPECT_EQ(rows->GetValue(0, 0).ToString(), "2two");
  writer.Run("DROP TABLE lake.u");
  auto tables = reader->Query(
      "SELECT string_agg(table_name, ',' ORDER BY table_name) FROM duckdb_tables() WHERE "
      "database_name = 'lake'");
  ASSERT_FALSE(tables->HasError()) << tables->GetError();
  EXPECT_EQ(tables->GetValue(0, 0).ToString(), "t");
  const auto after = CatalogServed();
  EXPECT_GE(after.rereads - before.rereads, 3u);
  EXPECT_EQ(after.full_reads, before.full_reads) << "a commit of this process read it all again";
}

TEST(NativeManager, SeesACommitOfAnotherConnectionAtItsNextTransaction) {
  TempDir dir;
  DuckLakeSession writer;
  AttachLake(writer, dir);
  writer.Run("CREATE TABLE lake.t(a INTEGER)");
  auto reader = writer.host().Connect();
  for (int i = 0; i < 5; ++i) {
    writer.Run("INSERT INTO lake.t VALUES (" + std::to_string(i) + ")");
    auto count = reader->Query("SELECT count(*) FROM lake.t");
    ASSERT_FALSE(count->HasError()) << count->GetError();
    EXPECT_EQ(count->GetValue(0, 0).GetValue<int64_t>(), i + 1);
  }
}

}  // namespace
}  // namespace moraine::test
