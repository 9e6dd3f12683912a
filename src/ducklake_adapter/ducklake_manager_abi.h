// The part of DuckLake's C++ ABI that moraine's native metadata manager binds
// to, declared here because DuckLake publishes no headers. The vtable of each
// known DuckLake build and the layouts of the structs below are generated
// from DuckLake's headers (ducklake_adapter/abi/); the code facts further
// down are of the DuckLake 1.5.5 binary the registries serve (source commit
// d8a1881e). Nothing here is trusted blindly: DuckLakeModule checks every
// symbol and every vtable slot against the loaded file before anything is
// registered, each code fact is compared byte for byte before its offsets are
// used, and the ecosystem tier checks the generated files against their
// binaries with `nm -D`.
//
// What moraine relies on, and why each is safe:
//   - `DuckLakeMetadataManager` is polymorphic; its vtable (exported as
//     kVtableSymbol) holds, after the offset-to-top and typeinfo words, the
//     slots the loaded build's ABI file lists. The symbol's size in the file
//     says so, and each slot must hold the address of the exported method
//     named for it.
//   - The base class is constructed by its exported constructor into memory
//     moraine allocates (kManagerAllocation bytes, far more than the base's
//     ~280), so moraine never needs the base's field layout: it keeps its own
//     state past kManagerStateOffset and points the object at a copy of the
//     vtable with a few slots replaced.
//   - The methods replaced take and return only DuckDB and standard types
//     (whose layouts are the pinned DuckDB release's and libstdc++'s, which
//     moraine is built against) and the plain DuckLake structs declared
//     below, member for member as the pinned source declares them. Their
//     layout cannot be read from the binary; the e2e and differential tiers
//     compare every answer built with them to DuckLake's own.
//
// Thread-safety: constants only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "duckdb/common/types/timestamp.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/common/vector.hpp"

namespace moraine::ducklake_adapter::ducklake_abi {

// duckdb::DuckLakeSnapshot: four idx_t, in this order, nothing else.
struct DuckLakeSnapshot {
  uint64_t snapshot_id;
  uint64_t schema_version;
  uint64_t next_catalog_id;
  uint64_t next_file_id;
};
static_assert(sizeof(DuckLakeSnapshot) == 32);

// duckdb::SnapshotBound, an enum of int's size.
enum class SnapshotBound : int { kLowerBound, kUpperBound };

// duckdb::TableIndex and duckdb::FieldIndex: one idx_t each.
struct TableIndex {
  uint64_t index;
};
struct FieldIndex {
  uint64_t index;
};

// duckdb::DuckLakeGlobalColumnStatsInfo and duckdb::DuckLakeGlobalStatsInfo.
struct DuckLakeGlobalColumnStatsInfo {
  FieldIndex column_id;
  bool contains_null = false;
  bool has_contains_null = false;
  bool contains_nan = false;
  bool has_contains_nan = false;
  std::string min_val;
  bool has_min = false;
  std::string max_val;
  bool has_max = false;
  std::string extra_stats;
  bool has_extra_stats = false;
};
struct DuckLakeGlobalStatsInfo {
  TableIndex table_id;
  bool initialized;
  uint64_t record_count;
  uint64_t next_row_id;
  uint64_t table_size_bytes;
  duckdb::vector<DuckLakeGlobalColumnStatsInfo> column_stats;
};
static_assert(sizeof(DuckLakeGlobalColumnStatsInfo) == 8 + 8 + 3 * (32 + 8));
static_assert(sizeof(DuckLakeGlobalStatsInfo) == 40 + 24);

// duckdb::DuckLakeRetryConfig: DuckLake's commit retry settings
// (ducklake_max_retry_count, ducklake_retry_wait_ms, ducklake_retry_backoff).
struct DuckLakeRetryConfig {
  uint64_t max_retry_count;
  uint64_t retry_wait_ms;
  double retry_backoff;
};
static_assert(sizeof(DuckLakeRetryConfig) == 24);

// duckdb::SnapshotChangeInfo and duckdb::DuckLakeSnapshotInfo: a row of
// ducklake_snapshot joined with its ducklake_snapshot_changes row, as
// GetAllSnapshots returns them (moraine passes them through untouched).
struct SnapshotChangeInfo {
  std::string changes_made;
};
struct DuckLakeSnapshotInfo {
  uint64_t id;
  duckdb::timestamp_tz_t time;
  uint64_t schema_version;
  uint64_t next_file_id;
  SnapshotChangeInfo change_info;
  duckdb::Value author;
  duckdb::Value commit_message;
  duckdb::Value commit_extra_info;
};

// duckdb::DataFileIndex and duckdb::DuckLakeFileForCleanup: a file the
// cleanup functions may delete, as GetOldFilesForCleanup returns them
// (passed through untouched).
struct DataFileIndex {
  uint64_t index;
};
struct DuckLakeFileForCleanup {
  DataFileIndex id;
  std::string path;
  duckdb::timestamp_tz_t time;
};

// The vtable: two words (offset-to-top, typeinfo), then the slots, whose
// names and number are the loaded build's (ducklake_adapter/abi/, generated
// from DuckLake's headers; DuckLakeModule finds which build is loaded).
inline constexpr size_t kVtableHeaderWords = 2;
inline constexpr const char* kVtableSymbol = "_ZTVN6duckdb23DuckLakeMetadataManagerE";

// The virtual methods moraine replaces or calls through DuckLake's own
// vtable, each known by the mangled name of the signature moraine implements.
// A build whose vtable holds no slot of that name (the method is gone, or its
// signature changed) keeps DuckLake's method, and only the answers that
// method gives stay DuckLake's.
enum class ManagerMethod : size_t {
  kCompleteDestructor,           // ~DuckLakeMetadataManager() [D1]
  kDeletingDestructor,           // ~DuckLakeMetadataManager() [D0]
  kFlushChangesServerSide,       // void FlushChangesServerSide(DuckLakeTransaction &,
                                 //   DuckLakeSnapshot, const TransactionChangeInformation &,
                                 //   const DuckLakeRetryConfig &)
  kMetadataExists,               // bool MetadataExists(), asked at every ATTACH
  kLoadDuckLake,                 // DuckLakeMetadata LoadDuckLake(): ducklake_metadata's rows
  kExecute,                      // unique_ptr<QueryResult> Execute(DuckLakeSnapshot, string &):
                                 //   the commit batch (its only caller is the commit loop)
  kQueryAtSnapshot,              // unique_ptr<QueryResult> Query(DuckLakeSnapshot, string &)
  kQuery,                        // unique_ptr<QueryResult> Query(string &)
  kGetCatalogForSnapshot,        // DuckLakeCatalogInfo GetCatalogForSnapshot(DuckLakeSnapshot)
  kGetGlobalTableStats,          // vector<DuckLakeGlobalStatsInfo>
                                 //   GetGlobalTableStats(DuckLakeSnapshot, TableIndex)
  kGetNetDataFileRowCount,       // idx_t GetNetDataFileRowCount(TableIndex, DuckLakeSnapshot)
  kGetNetInlinedRowCount,        // idx_t GetNetInlinedRowCount(const string &, DuckLakeSnapshot)
  kGetInlinedDeletionTableName,  // string GetInlinedDeletionTableName(TableIndex,
                                 //   DuckLakeSnapshot, bool create_if_not_exists)
  kGetSnapshot,                  // unique_ptr<DuckLakeSnapshot> GetSnapshot()
  kGetSnapshotAt,                // unique_ptr<DuckLakeSnapshot> GetSnapshot(BoundAtClause &,
                                 //   SnapshotBound)
  kGetNextColumnId,              // idx_t GetNextColumnId(TableIndex)
  kReadInlinedData,              // unique_ptr<QueryResult> ReadInlinedData(DuckLakeSnapshot,
                                 //   const string &table, const vector<string> &columns)
  kGetAllSnapshots,              // vector<DuckLakeSnapshotInfo> GetAllSnapshots(const string
                                 //   &filter): the expiry's choice, and snapshots()
  kGetOldFilesForCleanup,        // vector<DuckLakeFileForCleanup> GetOldFilesForCleanup(const
                                 //   string &filter): the old-files cleanup's choice
  kGetFilesForTable,             // vector<DuckLakeFileListEntry> GetFilesForTable(
                                 //   DuckLakeTableEntry &, DuckLakeSnapshot,
                                 //   const FilterPushdownInfo *): a scan's files
  kGetExtendedFilesForTable,     // vector<DuckLakeFileListExtendedEntry>
                                 //   GetExtendedFilesForTable(DuckLakeTableEntry &,
                                 //   DuckLakeSnapshot, const FilterPushdownInfo *): the
                                 //   files of a delete's or an update's scan
  kCount
};
inline constexpr size_t kManagerMethodCount = static_cast<size_t>(ManagerMethod::kCount);

// The mangled name of `method`'s signature.
const char* ManagerMethodSymbol(ManagerMethod method);
// Its name as DuckLake's header declares it, for messages.
const char* ManagerMethodName(ManagerMethod method);

// The exported functions called directly.
//   void SubstituteSnapshotPlaceholders(DuckLakeSnapshot, string &) const
inline constexpr const char* kSubstituteSnapshotPlaceholdersSymbol =
    "_ZNK6duckdb23DuckLakeMetadataManager30SubstituteSnapshotPlaceholdersENS_"
    "16DuckLakeSnapshotERNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE";
//   void SubstituteCatalogPlaceholders(string &) const
inline constexpr const char* kSubstituteCatalogPlaceholdersSymbol =
    "_ZNK6duckdb23DuckLakeMetadataManager29SubstituteCatalogPlaceholdersERNSt7__cxx1112basic_"
    "stringIcSt11char_traitsIcESaIcEEE";
//   static void Register(const string &name, create_t create)
inline constexpr const char* kRegisterSymbol =
    "_ZN6duckdb23DuckLakeMetadataManager8RegisterERKNSt7__cxx1112basic_stringIcSt11char_"
    "traitsIcESaIcEEEPFNS_10unique_ptrIS0_St14default_deleteIS0_ELb1EEERNS_"
    "19DuckLakeTransactionEE";
//   DuckLakeMetadataManager(DuckLakeTransaction &transaction) [C2, base object]
inline constexpr const char* kConstructorSymbol =
    "_ZN6duckdb23DuckLakeMetadataManagerC2ERNS_19DuckLakeTransactionE";
//   Connection &DuckLakeTransaction::GetConnection(): the transaction's
//   connection to the metadata catalog, its transaction begun.
inline constexpr const char* kGetConnectionSymbol =
    "_ZN6duckdb19DuckLakeTransaction13GetConnectionEv";

//   void DuckLakeTransaction::RunCommitLoop(DuckLakeSnapshot,
//       const TransactionChangeInformation &, const DuckLakeRetryConfig &):
//   DuckLake's own commit: write the batch, and on a lost race re-check for
//   conflicts and re-write it on the new head, as the retry config says.
inline constexpr const char* kRunCommitLoopSymbol =
    "_ZN6duckdb19DuckLakeTransaction13RunCommitLoopENS_16DuckLakeSnapshotERKNS_"
    "28TransactionChangeInformationERKNS_19DuckLakeRetryConfigE";

//   static string DuckLakeMetadataManager::GetSnapshotAndStatsAndChangesQuery():
//   the text of the query DuckLake's conflict check runs through
//   Query(snapshot, query) after a lost race.
inline constexpr const char* kConflictCheckQuerySymbol =
    "_ZN6duckdb23DuckLakeMetadataManager34GetSnapshotAndStatsAndChangesQueryB5cxx11Ev";

//   static string DuckLakeMetadataManager::LatestInlinedTableQuery(idx_t table_id):
//   the text of the lookup every commit that inlines rows sends through
//   Query(snapshot, query) for the table's newest inlined data table.
inline constexpr const char* kLatestInlinedTableQuerySymbol =
    "_ZN6duckdb23DuckLakeMetadataManager23LatestInlinedTableQueryB5cxx11Em";

//   static DuckLakeCatalogInfo DuckLakeMetadataManager::BuildCatalogForSnapshot(
//       DuckLakeSnapshot, const std::function<unique_ptr<QueryResult>(DuckLakeSnapshot,
//       string)> &query_executor, const string &base_data_path, const string &separator):
//   DuckLake's catalog load, its six queries sent through query_executor.
inline constexpr const char* kBuildCatalogForSnapshotSymbol =
    "_ZN6duckdb23DuckLakeMetadataManager23BuildCatalogForSnapshotENS_16DuckLakeSnapshotERKSt8"
    "functionIFNS_10unique_ptrINS_11QueryResultESt14default_deleteIS4_ELb1EEES1_NSt7__cxx1112"
    "basic_stringIcSt11char_traitsIcESaIcEEEEERKSD_SJ_";

//   bool DuckLakeInlinedDataReader::TryInitializeScan(ClientContext &,
//       GlobalTableFunctionState &, LocalTableFunctionState &) and
//   AsyncResult DuckLakeInlinedDataReader::Scan(ClientContext &,
//       GlobalTableFunctionState &, LocalTableFunctionState &, DataChunk &):
//   the overrides of DuckDB's BaseFileReader by which the reader of a
//   table's inlined rows is found (inlined_reader_hook.h).
inline constexpr const char* kInlinedReaderTryInitializeScanSymbol =
    "_ZN6duckdb25DuckLakeInlinedDataReader17TryInitializeScanERNS_13ClientContextERNS_"
    "24GlobalTableFunctionStateERNS_23LocalTableFunctionStateE";
inline constexpr const char* kInlinedReaderScanSymbol =
    "_ZN6duckdb25DuckLakeInlinedDataReader4ScanERNS_13ClientContextERNS_"
    "24GlobalTableFunctionStateERNS_23LocalTableFunctionStateERNS_9DataChunkE";

// Whether DuckLake hands its commit loop to the manager (FlushChanges calls
// FlushChangesServerSide instead of RunCommitLoop) is a flag of the
// DuckLakeCatalog that only inline methods set. Its place is read from the
// exported, non-virtual reader
//   bool DuckLakeMetadataManager::ExecuteRetrialsServerSide() const
// whose whole code in the pinned binary is
//   mov 0x78(%rdi),%rax       the manager's DuckLakeTransaction &
//   mov 0x40(%rax),%rax       the transaction's DuckLakeCatalog &
//   movzbl 0x2e9(%rax),%eax   the catalog's retrials_server_side
//   ret
// moraine compares the loaded function with these bytes before it uses the
// three offsets they state, and uses none of them on any difference.
inline constexpr const char* kExecuteRetrialsServerSideSymbol =
    "_ZNK6duckdb23DuckLakeMetadataManager25ExecuteRetrialsServerSideEv";
inline constexpr std::array<unsigned char, 16> kExecuteRetrialsServerSideCode = {
    0x48, 0x8b, 0x47, 0x78, 0x48, 0x8b, 0x40, 0x40, 0x0f, 0xb6, 0x80, 0xe9, 0x02, 0x00, 0x00, 0xc3};
inline constexpr size_t kManagerTransactionOffset = 0x78;
inline constexpr size_t kTransactionCatalogOffset = 0x40;
inline constexpr size_t kCatalogRetrialsServerSideOffset = 0x2e9;

// DuckLake's in-memory id of the newest snapshot committed through a catalog
// (DuckLakeCatalog::last_committed_snapshot, an optional_idx behind the
// catalog's commit_lock), which ducklake_last_committed_snapshot() returns
// and the commit loop sets to the id it staged. Only inline methods touch
// it; its place is confirmed from the code of that function's bind
// (last_committed_snapshot_read.h) before moraine writes it, and nothing is
// written on any difference.
inline constexpr const char* kLastCommittedSnapshotFunctionSymbol =
    "_ZN6duckdb37DuckLakeLastCommittedSnapshotFunctionC1Ev";
inline constexpr size_t kCatalogCommitLockOffset = 0x388;
inline constexpr size_t kCatalogLastCommittedSnapshotOffset = 0x3b0;

// Bytes allocated per manager, and where moraine's own state starts in them.
inline constexpr size_t kManagerAllocation = 1024;
inline constexpr size_t kManagerStateOffset = 768;

}  // namespace moraine::ducklake_adapter::ducklake_abi
