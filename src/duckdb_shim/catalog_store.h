// The store that serves the catalog of one metadata schema of a moraine
// catalog (store/nested_catalog_location.h), with what was chosen for it when
// it was first opened: the catalog version it is served at. The store is the
// registry's handle (commit/lake/store_registry.h), so its head catalog cache
// and commit turn come with it.
//
// Thread-safety: a value type; the store and cache it points to are
// thread-safe.
#pragma once

#include <memory>

#include "catalog/catalog_version.h"
#include "commit/lake/catalog_caching_store.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

struct CatalogStore {
  std::shared_ptr<commit::CatalogCachingStore> store;
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
};

}  // namespace moraine::duckdb_shim
