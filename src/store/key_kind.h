#pragma once

// The vocabulary of the keyspace (RFC 0002): which subspaces exist, which kinds
// of record live in them, and the shape of each kind's key.
//
// Every byte value below is part of the on-disk format. They are written out
// explicitly (never derived from declaration order) and pinned by golden
// vectors in tests/unit/store_key_golden_test.cpp. Never renumber; retire a
// value by leaving a gap.
//
// Thread-safety: constants, and functions of their arguments: safe from any
// thread.

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace moraine::store {

// The leading byte of every key. 0x00 is deliberately unused so that a zeroed
// buffer never decodes as a key.
enum class Subspace : uint8_t {
  kSystem = 0x01,         // format, head, migration and restore markers, namespace, tags
  kSnapshot = 0x02,       // one immutable record per snapshot
  kCurrent = 0x03,        // live entity versions
  kHistory = 0x04,        // ended entity versions, keyed with end_snapshot appended
  kInlineData = 0x05,     // inlined rows (reserved for RFC 0005)
  kIndex = 0x06,          // equality-index entries (reserved for RFC 0016)
  kSchemaVersion = 0x07,  // ducklake_schema_versions rows
  kChangelog = 0x08,      // per-commit changelog (reserved for RFC 0009)
};

// The second byte of every key. Values are unique across all subspaces so a
// kind byte alone names the record type (value frames repeat it).
enum class Kind : uint8_t {
  // system subspace: moraine's own records, not DuckLake rows.
  kFormat = 0x01,
  kHead = 0x02,
  kMigration = 0x03,
  kNamespace = 0x04,
  kProtectedTag = 0x05,   // (tag_id): moraine's protected tags, never DuckLake rows
  kRestoreMarker = 0x06,  // present only while a restore into an etcd prefix runs
  kRevertMark = 0x07,     // (snapshot_id): a snapshot moraine_rollback or moraine_undrop made

  // snapshot subspace.
  kSnapshot = 0x10,  // (snapshot_id)

  // current subspace; versioned kinds are mirrored in history.
  kSchema = 0x20,                    // (schema_id)
  kTable = 0x21,                     // (table_id)
  kView = 0x22,                      // (view_id)
  kMacro = 0x23,                     // (macro_id)
  kColumn = 0x24,                    // (table_id, column_id)
  kPartition = 0x25,                 // (table_id, partition_id)
  kSort = 0x26,                      // (table_id, sort_id)
  kDataFile = 0x27,                  // (table_id, data_file_id)
  kDeleteFile = 0x28,                // (table_id, delete_file_id)
  kColumnMapping = 0x29,             // (table_id, mapping_id); create-only
  kFileColumnStats = 0x2A,           // (table_id, data_file_id, column_id); store format 1 only
  kTableStats = 0x2B,                // (table_id); unversioned
  kTableColumnStats = 0x2C,          // (table_id, column_id); store format 1 only
  kTag = 0x2D,                       // (object_id); container, unversioned
  kOption = 0x2E,                    // (scope_kind, scope_id); unversioned
  kFileScheduledForDeletion = 0x2F,  // (data_file_id); unversioned
  kInlinedDataTable = 0x30,          // (table_id, schema_version); unversioned

  // Child rows DuckLake inserts and deletes with statements of their own, keyed
  // by their natural identity rather than embedded in a parent's value.
  kColumnTag = 0x31,           // (table_id, column_id); container, unversioned
  kFilePartitionValue = 0x32,  // (table_id, data_file_id, partition_key_index)
  kFileVariantStats = 0x33,    // (table_id, data_file_id, column_id); store format 1 only
  kPartitionColumn = 0x34,     // (table_id, partition_id, partition_key_index)
  kSortExpression = 0x35,      // (table_id, sort_id, sort_key_index)
  kNameMapping = 0x36,         // (mapping_id, column_id)
  kMacroImpl = 0x37,           // (macro_id, impl_id)
  kMacroParameter = 0x38,      // (macro_id, impl_id, column_id)
  kViewColumnTag = 0x39,       // (view_id); container, unversioned (catalog version 1.1)
  // Column stats, one container per data file or table (store format 2), so
  // a commit's key count does not grow with the table's width.
  kFileColumnStatsSet = 0x3A,   // (table_id, data_file_id); container
  kFileVariantStatsSet = 0x3B,  // (table_id, data_file_id); container
  kTableColumnStatsSet = 0x3C,  // (table_id); container
  // Derived: the summaries of a table's data files, 64 ids a page.
  kDataFileSummary = 0x3D,        // (table_id, data_file_id / 64): a page
  kDataFileSummaryBounds = 0x3E,  // (table_id, data_file_id / 64): a page's bounds

  // schema_version subspace.
  kSchemaVersion = 0x40,  // (table_id, begin_snapshot)

  // inline_data subspace (RFC 0005).
  kInlinedRow = 0x50,           // (table_id, schema_version, row_id, begin_snapshot); formats 0-2
  kInlinedTableShape = 0x51,    // (table_id, schema_version): a created inlined data table
  kInlinedDelete = 0x52,        // (table_id, file_id, row_id)
  kInlinedDeleteTable = 0x53,   // (table_id): the inlined delete table exists
  kInlinedRowBatch = 0x54,      // (table_id, schema_version, begin_snapshot): a commit's rows
  kInlinedBatchSummary = 0x55,  // (table_id, schema_version, begin_snapshot / 64): a page

  // changelog subspace (reserved for RFC 0009).
  kChangelog = 0x60,  // (snapshot_id)
};

// Scope discriminant of the option kind's first component.
enum class OptionScope : uint64_t { kGlobal = 0, kSchema = 1, kTable = 2 };

inline constexpr size_t kMaxKeyComponents = 4;

// Static facts about one kind; the single source of truth for key shapes.
struct KindInfo {
  Kind kind;
  std::string_view name;
  Subspace home;      // the subspace its live records are keyed in
  uint8_t arity;      // components in its home-subspace key
  bool table_scoped;  // first component is a table_id
  bool versioned;     // ended versions move to history (arity + 1 there)
};

inline constexpr std::array<KindInfo, 47> kKindTable = {{
    {Kind::kFormat, "format", Subspace::kSystem, 0, false, false},
    {Kind::kHead, "head", Subspace::kSystem, 0, false, false},
    {Kind::kMigration, "migration", Subspace::kSystem, 0, false, false},
    {Kind::kNamespace, "namespace", Subspace::kSystem, 0, false, false},
    {Kind::kProtectedTag, "protected_tag", Subspace::kSystem, 1, false, false},
    {Kind::kRestoreMarker, "restore_marker", Subspace::kSystem, 0, false, false},
    {Kind::kRevertMark, "revert_mark", Subspace::kSystem, 1, false, false},
    {Kind::kSnapshot, "snapshot", Subspace::kSnapshot, 1, false, false},
    {Kind::kSchema, "schema", Subspace::kCurrent, 1, false, true},
    {Kind::kTable, "table", Subspace::kCurrent, 1, true, true},
    {Kind::kView, "view", Subspace::kCurrent, 1, false, true},
    {Kind::kMacro, "macro", Subspace::kCurrent, 1, false, true},
    {Kind::kColumn, "column", Subspace::kCurrent, 2, true, true},
    {Kind::kPartition, "partition", Subspace::kCurrent, 2, true, true},
    {Kind::kSort, "sort", Subspace::kCurrent, 2, true, true},
    {Kind::kDataFile, "data_file", Subspace::kCurrent, 2, true, true},
    {Kind::kDeleteFile, "delete_file", Subspace::kCurrent, 2, true, true},
    {Kind::kColumnMapping, "column_mapping", Subspace::kCurrent, 2, true, false},
    {Kind::kFileColumnStats, "file_column_stats", Subspace::kCurrent, 3, true, false},
    {Kind::kTableStats, "table_stats", Subspace::kCurrent, 1, true, false},
    {Kind::kTableColumnStats, "table_column_stats", Subspace::kCurrent, 2, true, false},
    {Kind::kTag, "tag", Subspace::kCurrent, 1, false, false},
    {Kind::kOption, "option", Subspace::kCurrent, 2, false, false},
    {Kind::kFileScheduledForDeletion, "file_scheduled_for_deletion", Subspace::kCurrent, 1, false,
     false},
    {Kind::kInlinedDataTable, "inlined_data_table", Subspace::kCurrent, 2, true, false},
    {Kind::kColumnTag, "column_tag", Subspace::kCurrent, 2, true, false},
    {Kind::kFilePartitionValue, "file_partition_value", Subspace::kCurrent, 3, true, false},
    {Kind::kFileVariantStats, "file_variant_stats", Subspace::kCurrent, 3, true, false},
    {Kind::kPartitionColumn, "partition_column", Subspace::kCurrent, 3, true, false},
    {Kind::kSortExpression, "sort_expression", Subspace::kCurrent, 3, true, false},
    {Kind::kNameMapping, "name_mapping", Subspace::kCurrent, 2, false, false},
    {Kind::kMacroImpl, "macro_impl", Subspace::kCurrent, 2, false, false},
    {Kind::kMacroParameter, "macro_parameter", Subspace::kCurrent, 3, false, false},
    {Kind::kViewColumnTag, "view_column_tag", Subspace::kCurrent, 1, false, false},
    {Kind::kFileColumnStatsSet, "file_column_stats_set", Subspace::kCurrent, 2, true, false},
    {Kind::kFileVariantStatsSet, "file_variant_stats_set", Subspace::kCurrent, 2, true, false},
    {Kind::kTableColumnStatsSet, "table_column_stats_set", Subspace::kCurrent, 1, true, false},
    {Kind::kDataFileSummary, "data_file_summary", Subspace::kCurrent, 2, true, false},
    {Kind::kDataFileSummaryBounds, "data_file_summary_bounds", Subspace::kCurrent, 2, true, false},
    {Kind::kSchemaVersion, "schema_version", Subspace::kSchemaVersion, 2, true, false},
    {Kind::kInlinedRow, "inlined_row", Subspace::kInlineData, 4, true, false},
    {Kind::kInlinedTableShape, "inlined_table_shape", Subspace::kInlineData, 2, true, false},
    {Kind::kInlinedDelete, "inlined_delete", Subspace::kInlineData, 3, true, false},
    {Kind::kInlinedDeleteTable, "inlined_delete_table", Subspace::kInlineData, 1, true, false},
    {Kind::kInlinedRowBatch, "inlined_row_batch", Subspace::kInlineData, 3, true, false},
    {Kind::kInlinedBatchSummary, "inlined_batch_summary", Subspace::kInlineData, 3, true, false},
    {Kind::kChangelog, "changelog", Subspace::kChangelog, 1, false, false},
}};

// Kinds only an older store format wrote (one record per column stats row,
// one per inlined row): `moraine migrate` rewrites them, and a store of the
// current format holds none.
constexpr bool IsRetiredKind(Kind kind) {
  return kind == Kind::kFileColumnStats || kind == Kind::kTableColumnStats ||
         kind == Kind::kFileVariantStats || kind == Kind::kInlinedRow;
}

// The facts for `kind`, or nullptr for a byte that names no kind.
constexpr const KindInfo* FindKindInfo(uint8_t kind_byte) {
  for (const KindInfo& info : kKindTable) {
    if (static_cast<uint8_t>(info.kind) == kind_byte) return &info;
  }
  return nullptr;
}

// The facts for a valid Kind enumerator (every enumerator is in the table).
const KindInfo& GetKindInfo(Kind kind);

// Whether `byte` is one of the Subspace enumerators.
bool IsKnownSubspace(uint8_t byte);

std::string_view SubspaceName(Subspace subspace);

// How many components a key of `kind` has in `subspace`, or nullopt if that
// kind is never keyed there (e.g. an unversioned kind in history).
std::optional<size_t> KeyArity(Subspace subspace, Kind kind);

}  // namespace moraine::store
