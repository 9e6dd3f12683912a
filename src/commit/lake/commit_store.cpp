#include "commit/lake/commit_store.h"

#include <utility>

#include "commit/lake/catalog_caching_store.h"

namespace moraine::commit {

CommitStore::CommitStore(std::shared_ptr<store::KvStore> plain) : store_(std::move(plain)) {}

CommitStore::CommitStore(std::shared_ptr<CatalogCachingStore> registered)
    : caching_(registered.get()), store_(std::move(registered)) {}

}  // namespace moraine::commit
