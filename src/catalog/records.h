// The catalog's entity records are the store's protobuf messages: one message
// per DuckLake row kind (store/records.proto). This header gives them short
// names in the catalog namespace.
#pragma once

#include "store/records.pb.h"

namespace moraine::catalog {

using ColumnRecord = store::v1::ColumnRecord;
using DataFileRecord = store::v1::DataFileRecord;
using HeadRecord = store::v1::HeadRecord;
using OptionEntry = store::v1::OptionEntry;
using OptionRecord = store::v1::OptionRecord;
using InlinedDataTableRecord = store::v1::InlinedDataTableRecord;
using SchemaRecord = store::v1::SchemaRecord;
using SchemaVersionRecord = store::v1::SchemaVersionRecord;
using SnapshotRecord = store::v1::SnapshotRecord;
using TableRecord = store::v1::TableRecord;
using TableStatsRecord = store::v1::TableStatsRecord;
using ViewRecord = store::v1::ViewRecord;

// DuckLake ids are BIGINT; moraine keys are u64. Ids are never negative.
using Id = int64_t;

}  // namespace moraine::catalog
