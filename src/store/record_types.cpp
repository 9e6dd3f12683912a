#include "store/record_types.h"

#include "store/error.h"
#include "store/records.pb.h"

namespace moraine::store {

const google::protobuf::Message& RecordPrototype(Kind kind) {
  switch (kind) {
    case Kind::kFormat:
      return v1::FormatRecord::default_instance();
    case Kind::kHead:
      return v1::HeadRecord::default_instance();
    case Kind::kMigration:
      return v1::MigrationRecord::default_instance();
    case Kind::kNamespace:
      return v1::NamespaceRecord::default_instance();
    case Kind::kProtectedTag:
      return v1::ProtectedTagRecord::default_instance();
    case Kind::kRestoreMarker:
      return v1::RestoreMarkerRecord::default_instance();
    case Kind::kRevertMark:
      return v1::RevertMarkRecord::default_instance();
    case Kind::kSnapshot:
      return v1::SnapshotRecord::default_instance();
    case Kind::kSchema:
      return v1::SchemaRecord::default_instance();
    case Kind::kTable:
      return v1::TableRecord::default_instance();
    case Kind::kView:
      return v1::ViewRecord::default_instance();
    case Kind::kMacro:
      return v1::MacroRecord::default_instance();
    case Kind::kColumn:
      return v1::ColumnRecord::default_instance();
    case Kind::kPartition:
      return v1::PartitionRecord::default_instance();
    case Kind::kSort:
      return v1::SortRecord::default_instance();
    case Kind::kDataFile:
      return v1::DataFileRecord::default_instance();
    case Kind::kDeleteFile:
      return v1::DeleteFileRecord::default_instance();
    case Kind::kColumnMapping:
      return v1::ColumnMappingRecord::default_instance();
    case Kind::kFileColumnStats:
      return v1::FileColumnStatsRecord::default_instance();
    case Kind::kTableStats:
      return v1::TableStatsRecord::default_instance();
    case Kind::kTableColumnStats:
      return v1::TableColumnStatsRecord::default_instance();
    case Kind::kTag:
      return v1::TagRecord::default_instance();
    case Kind::kOption:
      return v1::OptionRecord::default_instance();
    case Kind::kFileScheduledForDeletion:
      return v1::FileScheduledForDeletionRecord::default_instance();
    case Kind::kInlinedDataTable:
      return v1::InlinedDataTableRecord::default_instance();
    case Kind::kSchemaVersion:
      return v1::SchemaVersionRecord::default_instance();
    case Kind::kInlinedRow:
      return v1::InlinedRowRecord::default_instance();
    case Kind::kInlinedRowBatch:
      return v1::InlinedRowBatchRecord::default_instance();
    case Kind::kDataFileSummary:
      return v1::DataFileSummaryPage::default_instance();
    case Kind::kDataFileSummaryBounds:
      return v1::DataFileSummaryBounds::default_instance();
    case Kind::kInlinedBatchSummary:
      return v1::InlinedBatchSummaryPage::default_instance();
    case Kind::kInlinedTableShape:
      return v1::InlinedTableShapeRecord::default_instance();
    case Kind::kInlinedDelete:
      return v1::InlinedDeleteRecord::default_instance();
    case Kind::kInlinedDeleteTable:
      return v1::InlinedDeleteTableRecord::default_instance();
    case Kind::kColumnTag:
      return v1::ColumnTagRecord::default_instance();
    case Kind::kFilePartitionValue:
      return v1::FilePartitionValueRecord::default_instance();
    case Kind::kFileVariantStats:
      return v1::FileVariantStatsRecord::default_instance();
    case Kind::kPartitionColumn:
      return v1::PartitionColumnRecord::default_instance();
    case Kind::kSortExpression:
      return v1::SortExpressionRecord::default_instance();
    case Kind::kNameMapping:
      return v1::NameMappingRecord::default_instance();
    case Kind::kMacroImpl:
      return v1::MacroImplRecord::default_instance();
    case Kind::kMacroParameter:
      return v1::MacroParameterRecord::default_instance();
    case Kind::kFileColumnStatsSet:
      return v1::FileColumnStatsSetRecord::default_instance();
    case Kind::kFileVariantStatsSet:
      return v1::FileVariantStatsSetRecord::default_instance();
    case Kind::kTableColumnStatsSet:
      return v1::TableColumnStatsSetRecord::default_instance();
    case Kind::kViewColumnTag:
      return v1::ViewColumnTagRecord::default_instance();
    case Kind::kChangelog:
      return v1::ChangelogRecord::default_instance();
  }
  throw InvalidArgumentError("no record type for kind byte " +
                             std::to_string(static_cast<int>(kind)));
}

std::unique_ptr<google::protobuf::Message> NewRecord(Kind kind) {
  return std::unique_ptr<google::protobuf::Message>(RecordPrototype(kind).New());
}

}  // namespace moraine::store
