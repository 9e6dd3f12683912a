// moraine's DuckLake metadata manager: DuckLake's own manager object with a
// few vtable slots answered natively from the moraine store instead of by SQL
// against the ducklake_* tables.
//
// DuckLake picks a manager per transaction by the metadata catalog's type
// (`moraine` for 'ducklake:moraine:...') from the factories registered with
// its exported DuckLakeMetadataManager::Register. moraine registers a factory
// once per process, as soon as it finds a loaded DuckLake whose ABI checks
// out (DuckLakeModule): at moraine's load if DuckLake is loaded, when DuckLake
// loads (a DuckDB extension callback), and at every moraine ATTACH, for a
// DuckLake loaded unseen. Until then DuckLake uses its own SQL manager, which
// gives the same answers.
//
// The factory constructs DuckLake's base manager with its exported
// constructor and points it at a copy of the base vtable with these slots
// replaced, each verified by address before the copy is made:
//   - MetadataExists() and LoadDuckLake(), at ATTACH: whether the store
//     holds ducklake_metadata, and its rows by scope;
//   - GetSnapshot(): the head of the store in O(1), read in the metadata
//     connection's own moraine transaction, so every later SQL read of the
//     DuckLake transaction sees the same store snapshot;
//   - GetSnapshot(AT (VERSION => n)): that snapshot record by key (AT
//     TIMESTAMP stays DuckLake's query);
//   - GetGlobalTableStats(snapshot, table): the table's stats rows, read by
//     key in the same moraine transaction;
//   - GetCatalogForSnapshot(snapshot): schemas, tables, columns, views,
//     partitions and sorts live at the snapshot (commit/lake/lake_catalog.h); a
//     catalog with macros stays DuckLake's SQL;
//   - GetNextColumnId(table): the largest column id of the table's keys + 1;
//   - ReadInlinedData(snapshot, table, columns): a table's inlined rows live
//     at the snapshot, from the store's row batches (inlined_data_result.h);
//   - GetFilesForTable and GetExtendedFilesForTable(table, snapshot,
//     filters): a scan's data files live at the snapshot with their delete
//     files, pruned by the per-file column stats as DuckLake's SQL prunes
//     them (file_list_read.h);
//   - FlushChangesServerSide(...): DuckLake's own commit loop, called with
//     no backoff between lost races and under the process's turn to commit
//     to the store, so a commit that lost the head to another re-plans on
//     the new head at once (DuckLake hands its loop to the manager once the
//     catalog's retrials flag is set, which every moraine manager does);
//   - Query(snapshot, query) for DuckLake's conflict-check query only (its
//     text compared with the one DuckLake's exported function returns): the
//     newest snapshot, the changes since the transaction's and every table's
//     stats, from the store (conflict_check_result.h);
//   - the deleting destructor, so the memory moraine allocated is freed by
//     moraine.
// Every replaced slot falls back to DuckLake's original method when the lake
// was attached with META_NATIVE_MANAGER false, so both paths stay comparable.
//
// Thread-safety: EnsureRegistered and Status may be called from any thread;
// managers are used by one DuckLake transaction at a time, as DuckLake does.
#pragma once

#include <cstdint>
#include <string>

#include "ducklake_adapter/native_manager_columns.h"

namespace moraine::ducklake_adapter {

class NativeMetadataManager {
 public:
  enum class State { kWaiting, kRegistered, kRefused };
  struct Status {
    State state = State::kWaiting;
    std::string reason;  // why not registered (kWaiting, kRefused)
    std::string ducklake_path;
    // The counters, flags and texts, as native_manager_columns.h lists them.
#define MORAINE_STATUS_COUNTER(name, meaning) uint64_t name = 0;
#define MORAINE_STATUS_FLAG(name, meaning) bool name = false;
#define MORAINE_STATUS_TEXT(name, meaning) std::string name;
    MORAINE_NATIVE_MANAGER_COLUMNS(MORAINE_STATUS_COUNTER, MORAINE_STATUS_FLAG, MORAINE_STATUS_TEXT)
#undef MORAINE_STATUS_COUNTER
#undef MORAINE_STATUS_FLAG
#undef MORAINE_STATUS_TEXT
  };

  // Registers the factory if DuckLake is loaded and not registered yet. A
  // DuckLake whose ABI differs from the declared one is refused once, with
  // its reason kept in Status and written to stderr, and never used.
  static void EnsureRegistered();
  static Status CurrentStatus();
  static const char* StateName(State state);
};

}  // namespace moraine::ducklake_adapter
