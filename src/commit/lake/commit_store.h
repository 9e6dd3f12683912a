// A store as the commit layer uses it: the store, and, when the store
// registry opened it, the CatalogCachingStore that wraps it (the catalog
// cached at its head, the process's commit turn). Carried explicitly, so
// that no layer has to discover those services by casting a KvStore.
//
// Converts implicitly from either pointer: a plain store (tests, the verb
// path's own opens, the store tools) has no cache and no turn; a registry
// handle has both. Keep a registry handle typed as CatalogCachingStore until
// it becomes a CommitStore: widened to a plain KvStore first, it converts to
// a CommitStore without its services (correct, only slower: a commit loop
// that holds no turn loses its retries to this process's other commits too).
//
// Thread-safety: a value type; what it points to is thread-safe.
#pragma once

#include <memory>

#include "store/kv_store.h"

namespace moraine::commit {

// Declared only: the row engine's header includes this one, and the cache
// behind CatalogCachingStore includes the row engine's.
class CatalogCachingStore;

class CommitStore {
 public:
  CommitStore(std::shared_ptr<store::KvStore> plain);  // NOLINT(google-explicit-constructor)
  CommitStore(
      std::shared_ptr<CatalogCachingStore> registered);  // NOLINT(google-explicit-constructor)

  const std::shared_ptr<store::KvStore>& store() const { return store_; }
  // The registry's wrapper of store(); null for a plain store.
  CatalogCachingStore* caching() const { return caching_; }

 private:
  CatalogCachingStore* caching_ = nullptr;  // points into store_ when set
  std::shared_ptr<store::KvStore> store_;
};

}  // namespace moraine::commit
