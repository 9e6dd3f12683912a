// The structs of DuckLake's DuckLakeCatalogInfo (what
// DuckLakeMetadataManager::GetCatalogForSnapshot returns), declared member
// for member as DuckLake 1.5.5 (source commit d8a1881e) declares them in
// storage/ducklake_metadata_info.hpp, for moraine's native metadata manager.
// Only DuckDB and standard types appear in them. Their layout cannot be read
// from the binary: the differential tier compares every catalog built with
// them against DuckLake's own SQL answer, both ways, at every snapshot.
//
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <string>

#include "duckdb/common/enums/order_type.hpp"
#include "duckdb/common/optional_idx.hpp"
#include "duckdb/common/types/value.hpp"
#include "duckdb/common/vector.hpp"
#include "ducklake_adapter/ducklake_manager_abi.h"

namespace moraine::ducklake_adapter::ducklake_abi {

struct SchemaIndex {
  uint64_t index;
};
struct MacroIndex {
  uint64_t index;
};

struct DuckLakeTag {
  std::string key;
  std::string value;
};

// What LoadDuckLake returns: ducklake_metadata's rows, global ones as tags.
struct DuckLakeSchemaSetting {
  SchemaIndex schema_id;
  DuckLakeTag tag;
};
struct DuckLakeTableSetting {
  TableIndex table_id;
  DuckLakeTag tag;
};
struct DuckLakeMetadata {
  duckdb::vector<DuckLakeTag> tags;
  duckdb::vector<DuckLakeSchemaSetting> schema_settings;
  duckdb::vector<DuckLakeTableSetting> table_settings;
};

struct DuckLakeSchemaInfo {
  SchemaIndex id;
  std::string uuid;
  std::string name;
  std::string path;
  duckdb::vector<DuckLakeTag> tags;
};

struct DuckLakeColumnInfo {
  FieldIndex id;
  std::string name;
  std::string type;
  duckdb::Value initial_default;
  duckdb::Value default_value;
  std::string default_value_type;
  bool nulls_allowed{};
  duckdb::vector<DuckLakeColumnInfo> children;
  duckdb::vector<DuckLakeTag> tags;
};

struct DuckLakeInlinedTableInfo {
  std::string table_name;
  uint64_t schema_version;
};

struct DuckLakeTableInfo {
  TableIndex id;
  SchemaIndex schema_id;
  std::string uuid;
  std::string name;
  std::string path;
  duckdb::vector<DuckLakeColumnInfo> columns;
  duckdb::vector<DuckLakeTag> tags;
  duckdb::vector<DuckLakeInlinedTableInfo> inlined_data_tables;
};

struct DuckLakeViewInfo {
  TableIndex id;
  SchemaIndex schema_id;
  std::string uuid;
  std::string name;
  std::string dialect;
  duckdb::vector<std::string> column_aliases;
  std::string sql;
  duckdb::vector<DuckLakeTag> tags;
};

struct DuckLakeMacroParameters {
  std::string parameter_name;
  std::string parameter_type;
  duckdb::Value default_value;
  std::string default_value_type;
};
struct DuckLakeMacroImplementation {
  std::string dialect;
  std::string sql;
  std::string type;
  duckdb::vector<DuckLakeMacroParameters> parameters;
};
struct DuckLakeMacroInfo {
  SchemaIndex schema_id;
  MacroIndex macro_id;
  std::string macro_name;
  duckdb::vector<DuckLakeMacroImplementation> implementations;
};

struct DuckLakePartitionFieldInfo {
  uint64_t partition_key_index = 0;
  FieldIndex field_id;
  std::string transform;
};
struct DuckLakePartitionInfo {
  duckdb::optional_idx id;
  TableIndex table_id;
  duckdb::vector<DuckLakePartitionFieldInfo> fields;
};

struct DuckLakeSortFieldInfo {
  uint64_t sort_key_index = 0;
  std::string expression;
  std::string dialect;
  duckdb::OrderType sort_direction;
  duckdb::OrderByNullType null_order;
};
struct DuckLakeSortInfo {
  duckdb::optional_idx id;
  TableIndex table_id;
  duckdb::vector<DuckLakeSortFieldInfo> fields;
};

struct DuckLakeCatalogInfo {
  duckdb::vector<DuckLakeSchemaInfo> schemas;
  duckdb::vector<DuckLakeTableInfo> tables;
  duckdb::vector<DuckLakeViewInfo> views;
  duckdb::vector<DuckLakeMacroInfo> macros;
  duckdb::vector<DuckLakePartitionInfo> partitions;
  duckdb::vector<DuckLakeSortInfo> sorts;
};

// The exported functions the catalog build calls.
//   static vector<string> DuckLakeUtil::ParseQuotedList(const string &input, char separator)
inline constexpr const char* kParseQuotedListSymbol =
    "_ZN6duckdb12DuckLakeUtil15ParseQuotedListERKNSt7__cxx1112basic_stringIcSt11char_"
    "traitsIcESaIcEEEc";
//   string DuckLakeCatalog::GetDataPath()
inline constexpr const char* kGetDataPathSymbol =
    "_ZN6duckdb15DuckLakeCatalog11GetDataPathB5cxx11Ev";
//   string DuckLakeMetadataManager::GetPathSeparator(const string &path)
inline constexpr const char* kGetPathSeparatorSymbol =
    "_ZN6duckdb23DuckLakeMetadataManager16GetPathSeparatorERKNSt7__cxx1112basic_stringIcSt11char_"
    "traitsIcESaIcEEE";

}  // namespace moraine::ducklake_adapter::ducklake_abi
