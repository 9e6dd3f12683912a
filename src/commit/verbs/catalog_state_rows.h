// The verb path's view of the catalog: a CatalogState read from the
// ducklake_* rows a RowTransaction sees (its base snapshot plus what it
// staged), through the one row mapping (catalog/state_loader.h has the rules).
//
// Thread-safety: uses the RowTransaction it is given, which the caller
// serializes (as every RowTransaction use).
#pragma once

#include <optional>

#include "catalog/catalog_state.h"
#include "commit/rows/row_transaction.h"

namespace moraine::commit {

// The catalog at `at` (nullopt: at the newest snapshot `rows` sees). Throws
// store::NotFoundError for a snapshot it does not see, and
// store::CorruptionError for a store without a catalog.
catalog::CatalogState ReadCatalogState(RowTransaction& rows,
                                       std::optional<catalog::Id> at = std::nullopt);

}  // namespace moraine::commit
