// Online backup and restore of a moraine store (issue #34), the same for
// every engine: a backup is every key and value of one consistent store
// snapshot (KvSnapshot: a RocksDB snapshot or secondary catch-up, an etcd
// read at one revision), taken while writers go on, written to a backup
// repository (backup_repository.h) in content-defined chunks, so that a
// backup after an earlier one in the same repository copies only the chunks
// that changed. A restore writes a backup into a new store: a directory,
// built under a temporary name beside the destination and renamed into
// place once whole and synced, so a crash leaves the destination absent
// (the next restore of that destination removes what it left beside it);
// or an etcd prefix, marked as a restore until its last batch lands the
// format record and the head, so a crash leaves a prefix every ATTACH
// refuses and the next restore finishes.
//
// Thread-safety: functions; BackupStore reads only `snapshot` (safe beside
// writers), RestoreStore writes only its destination.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "commit/lake/commit_store.h"
#include "store/kv_store.h"
#include "tools/backup_repository.h"

namespace moraine::tools {

// Called every so often with the keys read or written so far and the
// subspace byte of the key at hand (0xFF: done), as VerifyProgress is.
using BackupProgress = std::function<void(uint64_t keys, uint8_t subspace)>;

struct BackupReport {
  BackupManifest manifest;
  uint64_t bytes_copied = 0;  // bytes of chunks the repository did not hold yet
  uint64_t chunks_copied = 0;
  std::string hold;  // the protected tag holding it (BackupLake), or empty
};

// Backs up `snapshot` (of the store at `source`, named in the manifest) into
// the repository at `repository`, created if absent, as its next backup.
// Throws store::InvalidArgumentError for a snapshot that holds no moraine
// catalog (no head) or a destination that is something else, and as
// BackupRepository. Nothing but the repository is written.
// `id`: the backup's id, which must be new (nullopt: the next); `hold`: the
// tag holding it, named in its manifest (BackupLake).
BackupReport BackupStore(const store::KvSnapshot& snapshot, const std::string& source,
                         const std::string& repository, const BackupProgress& progress = {},
                         std::optional<uint64_t> id = std::nullopt, const std::string& hold = "");

// Backs up the lake on `store`, held: first a protected tag named
// BackupHoldName(repository, id) lands, keeping the newest snapshot and
// every file scheduled for deletion after that commit (the cleanup functions
// keep them: a compaction after the backup replaces files its catalog
// reads); then the backup reads a store snapshot taken after it, and the tag
// moves to that snapshot. So nothing the backup reads is deleted until
// ReleaseBackup. A backup that fails ends its hold. The backup's records
// hold the tag too (it landed first); a restore ends it there, so a
// restored lake holds nothing for the backup it came from. Throws as BackupStore
// and as commit::tags::CreateTag.
BackupReport BackupLake(const commit::CommitStore& store, const std::string& repository,
                        const BackupProgress& progress = {});

// The name of the hold of backup `id` in the repository at `repository`:
// "backup <id> of <12 hex digits of the SHA-256 of its absolute path>".
std::string BackupHoldName(const std::string& repository, uint64_t id);

// Ends the hold of backup `id` (nullopt: of every backup) of the repository
// at `repository` on `store`; returns the names of the holds ended. Throws
// store::NotFoundError when there is none to end.
std::vector<std::string> ReleaseBackup(const commit::CommitStore& store,
                                       const std::string& repository, std::optional<uint64_t> id);

// Restores backup `id` (nullopt: the newest) of the repository at
// `repository` into a new store at `destination`, a directory or an etcd
// location. Throws store::InvalidArgumentError when anything exists at
// `destination` but an interrupted restore's marked prefix (a restore never
// writes over anything), store::NotFoundError for a missing
// repository or backup, store::CorruptionError for a damaged chunk or
// manifest, store::UnsupportedVersionError for another backup format; the
// destination is then as it was.
BackupManifest RestoreStore(const std::string& repository, std::optional<uint64_t> id,
                            const std::string& destination, const BackupProgress& progress = {});

}  // namespace moraine::tools
