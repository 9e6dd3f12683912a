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

namespace moraine::ducklake_adapter {

class NativeMetadataManager {
 public:
  enum class State { kWaiting, kRegistered, kRefused };
  struct Status {
    State state = State::kWaiting;
    std::string reason;  // why not registered (kWaiting, kRefused)
    std::string ducklake_path;
    // Which known DuckLake build the loaded one is ("<commit> for DuckDB
    // <release>"), and the manager methods it lacks, whose answers stay
    // DuckLake's (empty: none).
    std::string ducklake_build;
    std::string kept_methods;
    uint64_t managers_created = 0;
    uint64_t native_snapshot_reads = 0;
    uint64_t native_stats_reads = 0;
    uint64_t native_column_id_reads = 0;
    // DuckLake's probe and settings load at ATTACH (MetadataExists, LoadDuckLake).
    uint64_t native_attach_reads = 0;
    // Row counts DuckLake reads for count(*) (net data-file and inlined rows,
    // and whether the inlined deletion table exists).
    uint64_t native_row_counts = 0;
    uint64_t native_catalog_reads = 0;
    // Scans of a table's inlined rows (ReadInlinedData) served from the store.
    uint64_t native_inlined_reads = 0;
    // How the catalog reads at the head were served (commit/lake/head_catalog_cache.h).
    uint64_t catalog_cache_hits = 0;
    uint64_t catalog_cache_rereads = 0;
    uint64_t catalog_full_reads = 0;
    // Whether DuckLake hands its commit loops to moraine (see
    // FlushChangesServerSide above), why not, and how many commits it ran.
    bool in_catalog_retry = false;
    std::string in_catalog_retry_reason;
    uint64_t in_catalog_commits = 0;
    uint64_t native_conflict_checks = 0;        // DuckLake's re-checks after lost races
    uint64_t native_catalog_queries = 0;        // catalog queries of DuckLake's commits
    uint64_t native_inlined_table_lookups = 0;  // newest inlined table, per inlining commit
    uint64_t staged_batch_statements = 0;       // commit batch statements staged without SQL
    uint64_t sql_batch_statements = 0;          // commit batch statements left to DuckDB
    // Whether a commit that lost its race to commits on other tables is
    // rebased onto the new head (commit/rows/snapshot_rebase.h), why not, and how
    // many were.
    bool rebase = false;
    std::string rebase_reason;
    uint64_t rebased_commits = 0;
  };

  // Registers the factory if DuckLake is loaded and not registered yet. A
  // DuckLake whose ABI differs from the declared one is refused once, with
  // its reason kept in Status and written to stderr, and never used.
  static void EnsureRegistered();
  static Status CurrentStatus();
  static const char* StateName(State state);
};

}  // namespace moraine::ducklake_adapter
