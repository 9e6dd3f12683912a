#include "ducklake_adapter/ducklake_manager_abi.h"

namespace moraine::ducklake_adapter::ducklake_abi {

const char* ManagerMethodSymbol(ManagerMethod method) {
  // Indexed by ManagerMethod.
  static constexpr const char* kSymbols[kManagerMethodCount] = {
      "_ZN6duckdb23DuckLakeMetadataManagerD1Ev",
      "_ZN6duckdb23DuckLakeMetadataManagerD0Ev",
      "_ZN6duckdb23DuckLakeMetadataManager22FlushChangesServerSideERNS_19DuckLakeTransactionENS_"
      "16DuckLakeSnapshotERKNS_28TransactionChangeInformationERKNS_19DuckLakeRetryConfigE",
      "_ZN6duckdb23DuckLakeMetadataManager14MetadataExistsEv",
      "_ZN6duckdb23DuckLakeMetadataManager12LoadDuckLakeEv",
      "_ZN6duckdb23DuckLakeMetadataManager7ExecuteENS_16DuckLakeSnapshotERNSt7__cxx1112basic_"
      "stringIcSt11char_traitsIcESaIcEEE",
      "_ZN6duckdb23DuckLakeMetadataManager5QueryENS_16DuckLakeSnapshotERNSt7__cxx1112basic_"
      "stringIcSt11char_traitsIcESaIcEEE",
      "_ZN6duckdb23DuckLakeMetadataManager5QueryERNSt7__cxx1112basic_stringIcSt11char_"
      "traitsIcESaIcEEE",
      "_ZN6duckdb23DuckLakeMetadataManager21GetCatalogForSnapshotENS_16DuckLakeSnapshotE",
      "_ZN6duckdb23DuckLakeMetadataManager19GetGlobalTableStatsENS_16DuckLakeSnapshotENS_"
      "10TableIndexE",
      "_ZN6duckdb23DuckLakeMetadataManager22GetNetDataFileRowCountENS_10TableIndexENS_"
      "16DuckLakeSnapshotE",
      "_ZN6duckdb23DuckLakeMetadataManager21GetNetInlinedRowCountERKNSt7__cxx1112basic_"
      "stringIcSt11char_traitsIcESaIcEEENS_16DuckLakeSnapshotE",
      "_ZN6duckdb23DuckLakeMetadataManager27GetInlinedDeletionTableNameB5cxx11ENS_10TableIndexENS_"
      "16DuckLakeSnapshotEb",
      "_ZN6duckdb23DuckLakeMetadataManager11GetSnapshotEv",
      "_ZN6duckdb23DuckLakeMetadataManager11GetSnapshotERNS_13BoundAtClauseENS_13SnapshotBoundE",
      "_ZN6duckdb23DuckLakeMetadataManager15GetNextColumnIdENS_10TableIndexE",
  };
  return kSymbols[static_cast<size_t>(method)];
}

const char* ManagerMethodName(ManagerMethod method) {
  // Indexed by ManagerMethod.
  static constexpr const char* kNames[kManagerMethodCount] = {
      "~DuckLakeMetadataManager [D1]",
      "~DuckLakeMetadataManager [D0]",
      "FlushChangesServerSide",
      "MetadataExists",
      "LoadDuckLake",
      "Execute(snapshot, batch)",
      "Query(snapshot, query)",
      "Query(query)",
      "GetCatalogForSnapshot",
      "GetGlobalTableStats",
      "GetNetDataFileRowCount",
      "GetNetInlinedRowCount",
      "GetInlinedDeletionTableName",
      "GetSnapshot()",
      "GetSnapshot(at, bound)",
      "GetNextColumnId",
  };
  return kNames[static_cast<size_t>(method)];
}

}  // namespace moraine::ducklake_adapter::ducklake_abi
