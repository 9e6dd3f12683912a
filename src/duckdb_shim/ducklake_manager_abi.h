// The part of DuckLake's C++ ABI that moraine's native metadata manager binds
// to, declared here as facts of the pinned DuckLake 1.5.5 binary (source
// commit d8a1881e) because DuckLake publishes no headers. Nothing here is
// trusted blindly: DuckLakeModule checks every symbol and every vtable slot
// against the loaded file before anything is registered, and the ecosystem
// tier checks the same facts against the pinned file with `nm -D`.
//
// What moraine relies on, and why each is safe:
//   - `DuckLakeMetadataManager` is polymorphic; its vtable (exported as
//     kVtableSymbol) holds kManagerSlotCount slots after the offset-to-top
//     and typeinfo words. The symbol's size in the file says so, and each
//     slot must hold the address of the exported method named for it.
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

#include "duckdb/common/vector.hpp"

namespace moraine::duckdb_shim::ducklake_abi {

// duckdb::DuckLakeSnapshot: four idx_t, in this order, nothing else.
struct DuckLakeSnapshot {
  uint64_t snapshot_id;
  uint64_t schema_version;
  uint64_t next_catalog_id;
  uint64_t next_file_id;
};
static_assert(sizeof(DuckLakeSnapshot) == 32);

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

// The vtable: two words (offset-to-top, typeinfo), then the slots.
inline constexpr size_t kManagerSlotCount = 74;
inline constexpr size_t kVtableHeaderWords = 2;
inline constexpr const char* kVtableSymbol = "_ZTVN6duckdb23DuckLakeMetadataManagerE";

// Slots moraine replaces or calls (indexes into the slots).
inline constexpr size_t kCompleteDestructorSlot = 0;  // ~DuckLakeMetadataManager() [D1]
inline constexpr size_t kDeletingDestructorSlot = 1;  // ~DuckLakeMetadataManager() [D0]
inline constexpr size_t kGetGlobalTableStatsSlot = 21;
//                     vector<DuckLakeGlobalStatsInfo> GetGlobalTableStats(DuckLakeSnapshot,
//                     TableIndex)
inline constexpr size_t kGetSnapshotSlot = 42;  // unique_ptr<DuckLakeSnapshot> GetSnapshot()

// The exported functions called directly.
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

// Bytes allocated per manager, and where moraine's own state starts in them.
inline constexpr size_t kManagerAllocation = 1024;
inline constexpr size_t kManagerStateOffset = 768;

// The mangled name of the method each slot must hold, in slot order.
const std::array<const char*, kManagerSlotCount>& ManagerSlotSymbols();

}  // namespace moraine::duckdb_shim::ducklake_abi
