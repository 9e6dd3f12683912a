// The store format axis (RFC 0015): sys/format records the layout version a
// store was written in. A build opens only stores of its own format; an older
// store is upgraded in place by an explicit migrate, a newer one is refused.
// (Independent of schema_version and of the DuckLake catalog version.)
//
// Thread-safety: plain data, and functions safe from any thread. MigrateStore
// opens a handle of its own and lands as one write conditional on the head: a
// commit landing meanwhile makes it throw store::ConflictError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "store/kv_store.h"

namespace moraine::commit {

// The format a store was written in: kStoreFormatVersion for a store this
// build made, 0 for one that predates the format record, nullopt when the
// store is empty (a new store, any build may initialize it).
std::optional<uint64_t> ReadStoreFormat(const store::KvSnapshot& snapshot);

// Throws store::UnsupportedVersionError unless the store is empty or of this
// build's format: a newer store names both versions; an older one says how to
// migrate it. A store caught mid-migration is refused the same way.
void RequireCurrentStoreFormat(store::KvStore& store);

struct MigrationReport {
  uint64_t from = 0;
  uint64_t to = 0;
  // Whether it wrote the summaries of the lake's inlined row batches or data
  // files, which the lake's head did not say it kept
  // (commit/rows/inlined_batch_summary.h, commit/rows/data_file_summary.h).
  bool summarized = false;
  bool migrated() const { return from != to; }
};

// Upgrades the store at `location` to this build's format in one atomic
// batch, then, unless its head says it keeps them, writes the summaries of
// its inlined row batches in a second; idempotent (a current store is
// reported and left alone). Throws
// store::UnsupportedVersionError for a newer store and store::NotFoundError
// for a location that holds no store.
MigrationReport MigrateStore(const std::string& location);

}  // namespace moraine::commit
