// Materializes a CatalogState from the store: at head by scanning `current`
// only (cost follows the live catalog), or at any past snapshot through the
// current + history filter.
#pragma once

#include <optional>

#include "catalog/catalog_state.h"
#include "store/kv_store.h"

namespace moraine::catalog {

// The head snapshot id recorded in sys/head; throws store::CorruptionError if
// the store has no head (it is not a moraine catalog, or is damaged).
Id ReadHeadSnapshotId(const store::KvSnapshot& snapshot);

// The catalog at `at` (nullopt: at head). Throws store::NotFoundError for a
// snapshot id the store does not hold.
CatalogState LoadState(const store::KvSnapshot& snapshot, std::optional<Id> at = std::nullopt);

}  // namespace moraine::catalog
