// The catalog of a lake at its newest snapshot, kept in memory per open store
// and advanced by each commit's own batch instead of being read again.
//
// A commit that lands (Advance) names the base head it was built on and its
// batch. If the cached catalog is at that base, it moves to the new head at
// once: a batch that touches no catalog definition (an INSERT, a DELETE, a
// compaction) leaves it as it is; one that does marks what it touched (a
// table's id, or the views and macros) so the next read re-reads those by key
// alone. A new schema, or a commit on another base (another process, an
// unknown head), drops the cache, and the next read scans `current` once.
//
// Thread-safety: every member may be called from any thread; one mutex
// guards the state. A read is served only to a transaction that sees exactly
// the cached head and has staged nothing: anything else reads the store.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "commit/lake/lake_catalog.h"
#include "commit/rows/row_transaction.h"
#include "store/write_batch.h"

namespace moraine::commit {

class HeadCatalogCache {
 public:
  // How a read was served.
  enum class Source {
    kCached,   // from memory, no store read
    kReread,   // from memory after re-reading by key what commits touched
    kFullRead  // read from `rows` (current only) and cached
  };
  struct Served {
    std::shared_ptr<const LakeCatalog> catalog;
    Source source;
  };

  // The catalog at `head_snapshot_id`, which `rows` must see as its newest
  // snapshot, with nothing staged. Served from the cache when it is at that
  // head for the same `data_path` and `separator` (after re-reading by key
  // what the commits since its last read touched); read from `rows` and
  // cached otherwise. Throws what ReadLakeCatalog throws, and then caches
  // nothing.
  Served AtHead(RowTransaction& rows, int64_t head_snapshot_id, const std::string& data_path,
                const std::string& separator);

  // A batch that landed on the head `base_head` (the framed head value it
  // replaced, nullopt for none) and wrote `batch`, the new head included.
  void Advance(const std::optional<std::string>& base_head, const store::WriteBatch& batch);
  // Drops the cached catalog (a write whose base or outcome is not known);
  // the next read reads the store.
  void Forget();

 private:
  struct State {
    std::shared_ptr<const LakeCatalog> catalog;
    std::string data_path;
    std::string separator;
    int64_t snapshot_id = -1;        // the head the catalog is at
    std::set<int64_t> stale_tables;  // ids whose rows changed since the read
    bool stale_views = false;        // views, view tags or macros changed
  };

  mutable std::mutex mutex_;
  std::optional<State> state_;
};

}  // namespace moraine::commit
