// The columns moraine_native_manager() returns after state, reason and
// ducklake, in their order: the one table that NativeMetadataManager::Status's
// fields, the registration's atomic counters, the copy from one to the other
// and the SQL function's column names, types and values are generated from,
// so that none of those lists can disagree with another.
//
//   COUNTER(name, meaning)  a count, atomic in the registration: UBIGINT
//   FLAG(name, meaning)     decided once at registration: BOOLEAN
//   TEXT(name, meaning)     decided at registration: VARCHAR, NULL when empty
//
// A new column is one line here; its name is its SQL column's. A use that
// wants only some kinds passes MORAINE_NATIVE_MANAGER_SKIP for the others.
#pragma once

#define MORAINE_NATIVE_MANAGER_SKIP(name, meaning)

// clang-format off
#define MORAINE_NATIVE_MANAGER_COLUMNS(COUNTER, FLAG, TEXT)                                      \
  COUNTER(managers_created, "managers DuckLake created")                                        \
  COUNTER(native_snapshot_reads, "GetSnapshot and GetSnapshotAt served from the store")          \
  COUNTER(native_stats_reads, "GetGlobalTableStats served from the store")                       \
  COUNTER(native_column_id_reads, "GetNextColumnId served from the store")                       \
  COUNTER(native_catalog_reads, "GetCatalogForSnapshot served from the store")                   \
  COUNTER(catalog_cache_hits, "catalog reads at the head served from the head cache")            \
  COUNTER(catalog_cache_rereads, "catalog reads at the head that reread what changed")           \
  COUNTER(catalog_full_reads, "catalog reads that read the whole catalog")                       \
  FLAG(in_catalog_retry, "whether DuckLake hands its commit loops to moraine")                   \
  COUNTER(in_catalog_commits, "commit loops run by moraine")                                     \
  COUNTER(native_conflict_checks, "DuckLake's re-checks after lost races")                       \
  COUNTER(native_catalog_queries, "catalog queries of DuckLake's commits")                       \
  COUNTER(native_inlined_table_lookups, "newest inlined table, per inlining commit")             \
  COUNTER(staged_batch_statements, "commit batch statements staged without SQL")                 \
  COUNTER(sql_batch_statements, "commit batch statements left to DuckDB")                        \
  FLAG(rebase, "whether a commit that lost its race to other tables' commits is rebased")        \
  COUNTER(rebased_commits, "commits rebased onto a new head (commit/rows/snapshot_rebase.h)")    \
  COUNTER(group_landed_commits, "of those, commits another writer landed with its own (etcd)")  \
  COUNTER(native_row_counts, "net data-file and inlined row counts DuckLake reads for count(*)") \
  COUNTER(native_attach_reads, "DuckLake's probe and settings load at ATTACH")                   \
  COUNTER(native_inlined_reads, "scans of a table's inlined rows (ReadInlinedData)")             \
  COUNTER(native_file_lists, "file lists of a table's scan (GetFilesForTable)")                   \
  COUNTER(files_pruned, "data files those file lists left out by their column stats")            \
  COUNTER(summarized_file_lists, "of those, lists the data file summaries decided")            \
  COUNTER(file_summary_pages_skipped, "data file summary pages those lists ruled out unread")   \
  COUNTER(inlined_rows_pruned, "inlined rows those scans left out by the scan's filters")       \
  COUNTER(inlined_batches_skipped, "inlined row batches those scans ruled out unread")          \
  COUNTER(native_expiries_narrowed, "expiries by time told to pass over tagged snapshots")        \
  COUNTER(native_cleanups_narrowed, "old-file cleanups told to keep what held backups read")      \
  TEXT(ducklake_build, "the known DuckLake build loaded: <commit> for DuckDB <release>")         \
  TEXT(kept_methods, "the manager methods the build lacks, whose answers stay DuckLake's")       \
  TEXT(in_catalog_retry_reason, "why in_catalog_retry is off")                                   \
  TEXT(rebase_reason, "why rebase is off")                                                      \
  TEXT(inlined_filter_reason, "why scans of inlined rows are not filtered by moraine")
// clang-format on
