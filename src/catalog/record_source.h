// Where a CatalogState is read from: the records the one row mapping stores
// each ducklake_* row as (catalog/row_mapping.h), by DuckLake table name.
// Implemented over a RowTransaction (the verb path, commit/verbs/catalog_state_rows.h)
// and over a read-only store snapshot (the tools, catalog/state_loader.h).
//
// Thread-safety: as the store view behind it; callers serialize.
#pragma once

#include <google/protobuf/message.h>

#include <functional>
#include <optional>
#include <string_view>

#include "catalog/records.h"

namespace moraine::catalog {

class RecordSource {
 public:
  using Visit = std::function<void(const google::protobuf::Message&)>;
  virtual ~RecordSource() = default;

  // The newest snapshot id. Throws store::CorruptionError without one.
  virtual Id Head() = 0;
  // The ducklake_snapshot row of `snapshot_id` merged with its
  // ducklake_snapshot_changes row, or nullopt if the store does not hold it.
  virtual std::optional<SnapshotRecord> Snapshot(Id snapshot_id) = 0;
  // Visits the records of the fixed table `table`, each a message of the kind
  // the table maps onto. `live_only` is a hint: the source may then skip
  // ended versions; the reader filters exactly either way.
  virtual void Scan(std::string_view table, bool live_only, const Visit& visit) = 0;
  // The largest column_id any version of a column of `table_id` ever had
  // (DuckLake's MAX(column_id) over ducklake_column), read from keys alone;
  // nullopt when the table has no column rows.
  virtual std::optional<Id> MaxColumnId(Id table_id) = 0;
};

}  // namespace moraine::catalog
