// Which store a location opens, and who shares it: one open store per
// location per process. The same store is routinely opened more than once
// (DuckLake's ATTACH OR REPLACE, two lakes on one path, DETACH followed by
// ATTACH while old plans still hold the catalog), and RocksDB allows a single
// read-write open. A read-only open is served by the read-write handle when
// one is open: a separate read-only RocksDB handle would see a frozen view of
// a store this process keeps writing.
//
// Every handle is a CatalogCachingStore, so that every commit of the process
// to a store passes the one cache of its catalog at the head. (This is why
// the registry is the commit layer's, not the store's.)
//
// An etcd location opened with other credentials is another handle: one user's
// handle is never lent to another.
//
// Handles are held weakly: a store closes when its last user drops it, and
// the next Open opens it again.
//
// Thread-safety: Open may be called from any thread; mutex_ guards the map,
// each location's `opening` its handles and its open (opens of one location are
// serial, of different locations concurrent). A handle is as
// thread-safe as its store (kv_store.h: any number of threads at once).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "commit/lake/catalog_caching_store.h"
#include "store/kv_store.h"

namespace moraine::commit {

class StoreRegistry {
 public:
  // The process's registry; never destroyed, so it outlives every user.
  static StoreRegistry& Instance();

  // The store at `location` (a path, "memory://", or an etcd location),
  // shared with every other open of it in this process. "memory://" names a
  // private store, never shared. `create`: whether an absent store may be
  // created; when not, an absent one is nullptr. Throws
  // store::InvalidArgumentError for an empty location, and what
  // store::OpenKvStore throws. `etcd_security`: as KvOptions's.
  std::shared_ptr<CatalogCachingStore> Open(
      const std::string& location, bool read_only, bool create = true,
      const std::optional<store::EtcdSecurity>& etcd_security = std::nullopt);

 private:
  struct Handles {
    // Held while the location is looked up or opened: opens of one location
    // are serial (RocksDB allows one read-write open), and an open that waits
    // (an etcd cluster that does not answer, up to its operation timeout)
    // holds up only opens of the same location.
    std::mutex opening;
    std::weak_ptr<CatalogCachingStore> read_write;
    std::weak_ptr<CatalogCachingStore> read_only;
  };

  std::mutex mutex_;  // guards the map's shape; never held during an open
  // By canonical location and credentials. Entries are never erased, so a
  // Handles outlives the map lock it was found under.
  std::map<std::string, Handles> handles_;
};

}  // namespace moraine::commit
