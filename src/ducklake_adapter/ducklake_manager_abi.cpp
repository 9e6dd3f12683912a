#include "ducklake_adapter/ducklake_manager_abi.h"

namespace moraine::ducklake_adapter::ducklake_abi {
namespace {

struct MethodNames {
  const char* name;    // as DuckLake's header declares it
  const char* symbol;  // its mangled signature
};

// Indexed by ManagerMethod.
constexpr MethodNames kMethods[kManagerMethodCount] = {
    {"~DuckLakeMetadataManager [D1]", "_ZN6duckdb23DuckLakeMetadataManagerD1Ev"},
    {"~DuckLakeMetadataManager [D0]", "_ZN6duckdb23DuckLakeMetadataManagerD0Ev"},
    {"FlushChangesServerSide",
     "_ZN6duckdb23DuckLakeMetadataManager22FlushChangesServerSideERNS_19DuckLakeTransactionENS_"
     "16DuckLakeSnapshotERKNS_28TransactionChangeInformationERKNS_19DuckLakeRetryConfigE"},
    {"MetadataExists", "_ZN6duckdb23DuckLakeMetadataManager14MetadataExistsEv"},
    {"LoadDuckLake", "_ZN6duckdb23DuckLakeMetadataManager12LoadDuckLakeEv"},
    {"Execute(snapshot, batch)",
     "_ZN6duckdb23DuckLakeMetadataManager7ExecuteENS_16DuckLakeSnapshotERNSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEE"},
    {"Query(snapshot, query)",
     "_ZN6duckdb23DuckLakeMetadataManager5QueryENS_16DuckLakeSnapshotERNSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEE"},
    {"Query(query)",
     "_ZN6duckdb23DuckLakeMetadataManager5QueryERNSt7__cxx1112basic_stringIcSt11char_"
     "traitsIcESaIcEEE"},
    {"GetCatalogForSnapshot",
     "_ZN6duckdb23DuckLakeMetadataManager21GetCatalogForSnapshotENS_16DuckLakeSnapshotE"},
    {"GetGlobalTableStats",
     "_ZN6duckdb23DuckLakeMetadataManager19GetGlobalTableStatsENS_16DuckLakeSnapshotENS_"
     "10TableIndexE"},
    {"GetNetDataFileRowCount",
     "_ZN6duckdb23DuckLakeMetadataManager22GetNetDataFileRowCountENS_10TableIndexENS_"
     "16DuckLakeSnapshotE"},
    {"GetNetInlinedRowCount",
     "_ZN6duckdb23DuckLakeMetadataManager21GetNetInlinedRowCountERKNSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEENS_16DuckLakeSnapshotE"},
    {"GetInlinedDeletionTableName",
     "_ZN6duckdb23DuckLakeMetadataManager27GetInlinedDeletionTableNameB5cxx11ENS_10TableIndexENS_"
     "16DuckLakeSnapshotEb"},
    {"GetSnapshot()", "_ZN6duckdb23DuckLakeMetadataManager11GetSnapshotEv"},
    {"GetSnapshot(at, bound)",
     "_ZN6duckdb23DuckLakeMetadataManager11GetSnapshotERNS_13BoundAtClauseENS_13SnapshotBoundE"},
    {"GetNextColumnId", "_ZN6duckdb23DuckLakeMetadataManager15GetNextColumnIdENS_10TableIndexE"},
    {"ReadInlinedData",
     "_ZN6duckdb23DuckLakeMetadataManager15ReadInlinedDataENS_16DuckLakeSnapshotERKNSt7__"
     "cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEERKNS_6vectorIS7_Lb1ESaIS7_EEE"},
    {"GetAllSnapshots",
     "_ZN6duckdb23DuckLakeMetadataManager15GetAllSnapshotsERKNSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEE"},
    {"GetOldFilesForCleanup",
     "_ZN6duckdb23DuckLakeMetadataManager21GetOldFilesForCleanupERKNSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEE"},
    {"GetFilesForTable",
     "_ZN6duckdb23DuckLakeMetadataManager16GetFilesForTableERNS_18DuckLakeTableEntryENS_"
     "16DuckLakeSnapshotEPKNS_18FilterPushdownInfoE"},
    {"GetExtendedFilesForTable",
     "_ZN6duckdb23DuckLakeMetadataManager24GetExtendedFilesForTableERNS_18DuckLakeTableEntryENS_"
     "16DuckLakeSnapshotEPKNS_18FilterPushdownInfoE"},
};

}  // namespace

const char* ManagerMethodSymbol(ManagerMethod method) {
  return kMethods[static_cast<size_t>(method)].symbol;
}

const char* ManagerMethodName(ManagerMethod method) {
  return kMethods[static_cast<size_t>(method)].name;
}

}  // namespace moraine::ducklake_adapter::ducklake_abi
