// Materializes a CatalogState from the rows of DuckLake's ducklake_* tables
// (read as the records the one row mapping stores them as): at head from the
// live versions, or at any past snapshot through DuckLake's temporal filter
// (begin_snapshot <= S AND (end_snapshot IS NULL OR end_snapshot > S)).
//
// A table's next_column_id is DuckLake's: MAX(column_id) over every version
// of its columns the source holds, plus one
// (DuckLakeMetadataManager::GetNextColumnId), read from keys alone, so a
// load at head reads the live versions only.
#pragma once

#include <optional>

#include "catalog/catalog_state.h"
#include "catalog/record_source.h"
#include "store/kv_store.h"

namespace moraine::catalog {

// The head snapshot id recorded in sys/head; throws store::CorruptionError if
// the store has no head (it is not a moraine catalog, or is damaged).
Id ReadHeadSnapshotId(const store::KvSnapshot& snapshot);

// The catalog at `at` (nullopt: at head). Throws store::NotFoundError for a
// snapshot id the source does not hold.
CatalogState LoadState(RecordSource& source, std::optional<Id> at = std::nullopt);
// The same over a read-only store snapshot (the tools).
CatalogState LoadState(const store::KvSnapshot& snapshot, std::optional<Id> at = std::nullopt);

}  // namespace moraine::catalog
