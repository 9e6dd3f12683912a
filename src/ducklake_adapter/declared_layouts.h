// The DuckLake structs moraine declares for itself (ducklake_manager_abi.h,
// ducklake_catalog_abi.h, ducklake_file_list_abi.h), as one list of every member whose place
// moraine relies on. The list is used twice:
//   - scripts/generate_ducklake_abi.sh compiles it against DuckLake's own
//     headers at a commit and records each struct's size and each member's
//     offset in that build's generated ABI file (abi/*.h);
//   - moraine computes the same numbers from its declarations (declared
//     layout.h), and uses a build's answers only where they agree.
//
// MORAINE_DUCKLAKE_LAYOUTS(S, M) calls S(struct) once per struct moraine
// declares whole, then M(struct, member) once per member. DuckLakeTableEntry
// is declared only as far as its table id (ducklake_file_list_abi.h), so it
// has no S, and the generator's probe reads that private member's offset.
// Plain preprocessor text: it must compile in the generator's probe, which
// sees DuckLake's headers and not moraine's.
//
// Thread-safety: a macro.
#pragma once

#define MORAINE_DUCKLAKE_LAYOUTS(S, M)                         \
  S(DuckLakeSnapshot)                                          \
  M(DuckLakeSnapshot, snapshot_id)                             \
  M(DuckLakeSnapshot, schema_version)                          \
  M(DuckLakeSnapshot, next_catalog_id)                         \
  M(DuckLakeSnapshot, next_file_id)                            \
  S(TableIndex)                                                \
  M(TableIndex, index)                                         \
  S(FieldIndex)                                                \
  M(FieldIndex, index)                                         \
  S(SchemaIndex)                                               \
  M(SchemaIndex, index)                                        \
  S(MacroIndex)                                                \
  M(MacroIndex, index)                                         \
  S(DuckLakeGlobalColumnStatsInfo)                             \
  M(DuckLakeGlobalColumnStatsInfo, column_id)                  \
  M(DuckLakeGlobalColumnStatsInfo, contains_null)              \
  M(DuckLakeGlobalColumnStatsInfo, has_contains_null)          \
  M(DuckLakeGlobalColumnStatsInfo, contains_nan)               \
  M(DuckLakeGlobalColumnStatsInfo, has_contains_nan)           \
  M(DuckLakeGlobalColumnStatsInfo, min_val)                    \
  M(DuckLakeGlobalColumnStatsInfo, has_min)                    \
  M(DuckLakeGlobalColumnStatsInfo, max_val)                    \
  M(DuckLakeGlobalColumnStatsInfo, has_max)                    \
  M(DuckLakeGlobalColumnStatsInfo, extra_stats)                \
  M(DuckLakeGlobalColumnStatsInfo, has_extra_stats)            \
  S(DuckLakeGlobalStatsInfo)                                   \
  M(DuckLakeGlobalStatsInfo, table_id)                         \
  M(DuckLakeGlobalStatsInfo, initialized)                      \
  M(DuckLakeGlobalStatsInfo, record_count)                     \
  M(DuckLakeGlobalStatsInfo, next_row_id)                      \
  M(DuckLakeGlobalStatsInfo, table_size_bytes)                 \
  M(DuckLakeGlobalStatsInfo, column_stats)                     \
  S(DuckLakeRetryConfig)                                       \
  M(DuckLakeRetryConfig, max_retry_count)                      \
  M(DuckLakeRetryConfig, retry_wait_ms)                        \
  M(DuckLakeRetryConfig, retry_backoff)                        \
  S(DuckLakeTag)                                               \
  M(DuckLakeTag, key)                                          \
  M(DuckLakeTag, value)                                        \
  S(DuckLakeSchemaSetting)                                     \
  M(DuckLakeSchemaSetting, schema_id)                          \
  M(DuckLakeSchemaSetting, tag)                                \
  S(DuckLakeTableSetting)                                      \
  M(DuckLakeTableSetting, table_id)                            \
  M(DuckLakeTableSetting, tag)                                 \
  S(DuckLakeMetadata)                                          \
  M(DuckLakeMetadata, tags)                                    \
  M(DuckLakeMetadata, schema_settings)                         \
  M(DuckLakeMetadata, table_settings)                          \
  S(DuckLakeSchemaInfo)                                        \
  M(DuckLakeSchemaInfo, id)                                    \
  M(DuckLakeSchemaInfo, uuid)                                  \
  M(DuckLakeSchemaInfo, name)                                  \
  M(DuckLakeSchemaInfo, path)                                  \
  M(DuckLakeSchemaInfo, tags)                                  \
  S(DuckLakeColumnInfo)                                        \
  M(DuckLakeColumnInfo, id)                                    \
  M(DuckLakeColumnInfo, name)                                  \
  M(DuckLakeColumnInfo, type)                                  \
  M(DuckLakeColumnInfo, initial_default)                       \
  M(DuckLakeColumnInfo, default_value)                         \
  M(DuckLakeColumnInfo, default_value_type)                    \
  M(DuckLakeColumnInfo, nulls_allowed)                         \
  M(DuckLakeColumnInfo, children)                              \
  M(DuckLakeColumnInfo, tags)                                  \
  S(DuckLakeInlinedTableInfo)                                  \
  M(DuckLakeInlinedTableInfo, table_name)                      \
  M(DuckLakeInlinedTableInfo, schema_version)                  \
  S(DuckLakeTableInfo)                                         \
  M(DuckLakeTableInfo, id)                                     \
  M(DuckLakeTableInfo, schema_id)                              \
  M(DuckLakeTableInfo, uuid)                                   \
  M(DuckLakeTableInfo, name)                                   \
  M(DuckLakeTableInfo, path)                                   \
  M(DuckLakeTableInfo, columns)                                \
  M(DuckLakeTableInfo, tags)                                   \
  M(DuckLakeTableInfo, inlined_data_tables)                    \
  S(DuckLakeViewInfo)                                          \
  M(DuckLakeViewInfo, id)                                      \
  M(DuckLakeViewInfo, schema_id)                               \
  M(DuckLakeViewInfo, uuid)                                    \
  M(DuckLakeViewInfo, name)                                    \
  M(DuckLakeViewInfo, dialect)                                 \
  M(DuckLakeViewInfo, column_aliases)                          \
  M(DuckLakeViewInfo, sql)                                     \
  M(DuckLakeViewInfo, tags)                                    \
  S(DuckLakeMacroParameters)                                   \
  M(DuckLakeMacroParameters, parameter_name)                   \
  M(DuckLakeMacroParameters, parameter_type)                   \
  M(DuckLakeMacroParameters, default_value)                    \
  M(DuckLakeMacroParameters, default_value_type)               \
  S(DuckLakeMacroImplementation)                               \
  M(DuckLakeMacroImplementation, dialect)                      \
  M(DuckLakeMacroImplementation, sql)                          \
  M(DuckLakeMacroImplementation, type)                         \
  M(DuckLakeMacroImplementation, parameters)                   \
  S(DuckLakeMacroInfo)                                         \
  M(DuckLakeMacroInfo, schema_id)                              \
  M(DuckLakeMacroInfo, macro_id)                               \
  M(DuckLakeMacroInfo, macro_name)                             \
  M(DuckLakeMacroInfo, implementations)                        \
  S(DuckLakePartitionFieldInfo)                                \
  M(DuckLakePartitionFieldInfo, partition_key_index)           \
  M(DuckLakePartitionFieldInfo, field_id)                      \
  M(DuckLakePartitionFieldInfo, transform)                     \
  S(DuckLakePartitionInfo)                                     \
  M(DuckLakePartitionInfo, id)                                 \
  M(DuckLakePartitionInfo, table_id)                           \
  M(DuckLakePartitionInfo, fields)                             \
  S(DuckLakeSortFieldInfo)                                     \
  M(DuckLakeSortFieldInfo, sort_key_index)                     \
  M(DuckLakeSortFieldInfo, expression)                         \
  M(DuckLakeSortFieldInfo, dialect)                            \
  M(DuckLakeSortFieldInfo, sort_direction)                     \
  M(DuckLakeSortFieldInfo, null_order)                         \
  S(DuckLakeSortInfo)                                          \
  M(DuckLakeSortInfo, id)                                      \
  M(DuckLakeSortInfo, table_id)                                \
  M(DuckLakeSortInfo, fields)                                  \
  S(DuckLakeCatalogInfo)                                       \
  M(DuckLakeCatalogInfo, schemas)                              \
  M(DuckLakeCatalogInfo, tables)                               \
  M(DuckLakeCatalogInfo, views)                                \
  M(DuckLakeCatalogInfo, macros)                               \
  M(DuckLakeCatalogInfo, partitions)                           \
  M(DuckLakeCatalogInfo, sorts)                                \
  S(SnapshotChangeInfo)                                        \
  M(SnapshotChangeInfo, changes_made)                          \
  S(DuckLakeSnapshotInfo)                                      \
  M(DuckLakeSnapshotInfo, id)                                  \
  M(DuckLakeSnapshotInfo, time)                                \
  M(DuckLakeSnapshotInfo, schema_version)                      \
  M(DuckLakeSnapshotInfo, next_file_id)                        \
  M(DuckLakeSnapshotInfo, change_info)                         \
  M(DuckLakeSnapshotInfo, author)                              \
  M(DuckLakeSnapshotInfo, commit_message)                      \
  M(DuckLakeSnapshotInfo, commit_extra_info)                   \
  S(DataFileIndex)                                             \
  M(DataFileIndex, index)                                      \
  S(DuckLakeFileForCleanup)                                    \
  M(DuckLakeFileForCleanup, id)                                \
  M(DuckLakeFileForCleanup, path)                              \
  M(DuckLakeFileForCleanup, time)                              \
  S(MappingIndex)                                              \
  M(MappingIndex, index)                                       \
  S(DuckLakeFileData)                                          \
  M(DuckLakeFileData, path)                                    \
  M(DuckLakeFileData, encryption_key)                          \
  M(DuckLakeFileData, file_size_bytes)                         \
  M(DuckLakeFileData, footer_size)                             \
  M(DuckLakeFileData, format)                                  \
  S(DuckLakeFileListEntry)                                     \
  M(DuckLakeFileListEntry, data_file_id)                       \
  M(DuckLakeFileListEntry, file)                               \
  M(DuckLakeFileListEntry, delete_file)                        \
  M(DuckLakeFileListEntry, row_id_start)                       \
  M(DuckLakeFileListEntry, snapshot_id)                        \
  M(DuckLakeFileListEntry, max_row_count)                      \
  M(DuckLakeFileListEntry, snapshot_filter_max)                \
  M(DuckLakeFileListEntry, snapshot_filter_min)                \
  M(DuckLakeFileListEntry, mapping_id)                         \
  M(DuckLakeFileListEntry, data_type)                          \
  M(DuckLakeFileListEntry, file_id)                            \
  M(DuckLakeFileListEntry, inlined_file_deletions)             \
  M(DuckLakeFileListEntry, column_min_max)                     \
  S(DuckLakeFileListExtendedEntry)                             \
  M(DuckLakeFileListExtendedEntry, file_id)                    \
  M(DuckLakeFileListExtendedEntry, delete_file_id)             \
  M(DuckLakeFileListExtendedEntry, file)                       \
  M(DuckLakeFileListExtendedEntry, delete_file)                \
  M(DuckLakeFileListExtendedEntry, row_id_start)               \
  M(DuckLakeFileListExtendedEntry, snapshot_id)                \
  M(DuckLakeFileListExtendedEntry, delete_file_begin_snapshot) \
  M(DuckLakeFileListExtendedEntry, row_count)                  \
  M(DuckLakeFileListExtendedEntry, delete_count)               \
  M(DuckLakeFileListExtendedEntry, mapping_id)                 \
  M(DuckLakeFileListExtendedEntry, data_type)                  \
  S(ColumnFilterInfo)                                          \
  M(ColumnFilterInfo, column_field_index)                      \
  M(ColumnFilterInfo, column_type)                             \
  M(ColumnFilterInfo, table_filter)                            \
  S(FilterPushdownInfo)                                        \
  M(FilterPushdownInfo, column_filters)                        \
  M(DuckLakeTableEntry, table_id)
