// The store that serves the catalog of one metadata schema of a moraine
// catalog (store/nested_catalog_location.h), with what was chosen for it when
// it was first opened: the catalog version it is served at, and the catalog
// it keeps at its head, if any.
//
// Thread-safety: a value type; the store and cache it points to are
// thread-safe.
#pragma once

#include <memory>
#include <mutex>

#include "catalog/catalog_version.h"
#include "commit/lake/catalog_caching_store.h"
#include "store/kv_store.h"

namespace moraine::duckdb_shim {

struct CatalogStore {
  std::shared_ptr<store::KvStore> store;
  catalog::CatalogVersion shape = catalog::CatalogVersion::kV1_0;
  commit::HeadCatalogCache* head_catalog = nullptr;  // owned by `store`; may be null
  std::recursive_mutex* commit_turn = nullptr;       // owned by `store`; may be null

  // `store` at `shape`, with the cache and commit turn of a
  // commit::CatalogCachingStore.
  static CatalogStore Of(std::shared_ptr<store::KvStore> store, catalog::CatalogVersion shape) {
    auto* caching = dynamic_cast<commit::CatalogCachingStore*>(store.get());
    return {std::move(store), shape, caching ? &caching->head_catalog() : nullptr,
            caching ? &caching->commit_turn() : nullptr};
  }
};

}  // namespace moraine::duckdb_shim
