#include "tools/store_backup.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "commit/lake/store_records.h"
#include "commit/tags/protected_tag.h"
#include "commit/tags/tag_book.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/rocksdb/test_hooks.h"
#include "store/value_frame.h"
#include "store/write_batch.h"
#include "tools/iso_time.h"
#include "util/big_endian.h"
#include "util/directory_sync.h"
#include "util/wall_clock.h"

namespace moraine::tools {
namespace {

namespace fs = std::filesystem;

// Content-defined chunking: a chunk ends where a subspace does, after a key
// whose hash is 0 modulo kBoundaryDivisor once it holds kMinChunk bytes, or
// at kMaxChunk bytes. A
// boundary depends only on the key, so after a change the chunks fall back
// into step with the earlier backup's at the next boundary, and an
// unchanged stretch of the keyspace is an unchanged chunk (~70 KiB on
// average with catalog records of a few hundred bytes).
constexpr size_t kMinChunk = 16 * 1024;
constexpr size_t kMaxChunk = 1024 * 1024;
constexpr uint64_t kBoundaryDivisor = 256;
constexpr uint64_t kProgressEvery = 4096;
// A restore writes the store in batches of about this many bytes.
constexpr size_t kRestoreBatchBytes = 4 * 1024 * 1024;

uint64_t Fnv1a(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

void AppendRecord(std::string* chunk, std::string_view key, std::string_view value) {
  util::AppendBigEndian32(chunk, static_cast<uint32_t>(key.size()));
  chunk->append(key);
  util::AppendBigEndian32(chunk, static_cast<uint32_t>(value.size()));
  chunk->append(value);
}

// Visits the records of a chunk; throws CorruptionError for a chunk that
// does not parse as records (its hash matched, so it was written so).
template <class Visit>
uint64_t ForEachRecord(std::string_view chunk, const std::string& name, const Visit& visit) {
  uint64_t records = 0;
  const auto take = [&](std::string_view* out) {
    if (chunk.size() < 4) return false;
    const uint32_t size = util::ReadBigEndian32(chunk.data());
    if (chunk.size() - 4 < size) return false;
    *out = chunk.substr(4, size);
    chunk.remove_prefix(4 + size);
    return true;
  };
  while (!chunk.empty()) {
    std::string_view key, value;
    if (!take(&key) || !take(&value)) {
      throw store::CorruptionError("chunk " + name + " does not hold whole records");
    }
    visit(key, value);
    ++records;
  }
  return records;
}

}  // namespace

BackupReport BackupStore(const store::KvSnapshot& snapshot, const std::string& source,
                         const std::string& repository, const BackupProgress& progress,
                         std::optional<uint64_t> id, const std::string& hold) {
  const auto head = snapshot.Get(commit::HeadKey());
  if (!head) {
    throw store::InvalidArgumentError(source +
                                      " holds no moraine catalog (no head record) to back up");
  }
  BackupRepository repo = BackupRepository::OpenOrCreate(repository);
  BackupReport report;
  BackupManifest& manifest = report.manifest;
  const auto ids = repo.BackupIds();
  manifest.id = id.value_or(ids.empty() ? 1 : ids.back() + 1);
  if (std::find(ids.begin(), ids.end(), manifest.id) != ids.end()) {
    throw store::ConstraintError("backup " + std::to_string(manifest.id) + " already exists in " +
                                 repository);
  }
  manifest.created = IsoTime(util::NowMicros());
  manifest.source = source;
  manifest.hold = hold;
  manifest.head_snapshot = commit::DecodeHeadSnapshotId(*head);
  manifest.batch_count = commit::DecodeHeadBatchCount(*head);

  std::string chunk;
  uint64_t chunk_keys = 0;
  const auto flush = [&] {
    if (chunk.empty()) return;
    auto [sha256, copied] = repo.PutChunk(chunk);
    if (copied) store::CrashPoint("backup.chunk_written");
    manifest.chunks.push_back({std::move(sha256), chunk_keys, chunk.size()});
    report.bytes_copied += copied;
    report.chunks_copied += copied ? 1 : 0;
    chunk.clear();
    chunk_keys = 0;
  };
  char subspace = 0;
  for (auto it = snapshot.Scan(store::KeyRange{}); it->Valid(); it->Next()) {
    // Each subspace starts a chunk: the system records (the head among them)
    // change at every commit, and are a chunk of their own.
    if (it->key()[0] != subspace) {
      flush();
      subspace = it->key()[0];
    }
    AppendRecord(&chunk, it->key(), it->value());
    ++chunk_keys;
    ++manifest.keys;
    manifest.bytes += 8 + it->key().size() + it->value().size();
    if ((chunk.size() >= kMinChunk && Fnv1a(it->key()) % kBoundaryDivisor == 0) ||
        chunk.size() >= kMaxChunk) {
      flush();
    }
    if (progress && manifest.keys % kProgressEvery == 0) {
      progress(manifest.keys, static_cast<uint8_t>(it->key()[0]));
    }
  }
  flush();
  store::CrashPoint("backup.before_manifest");
  repo.PutManifest(manifest);
  if (progress) progress(manifest.keys, 0xFF);
  return report;
}

std::string BackupHoldName(const std::string& repository, uint64_t id) {
  const std::string where = fs::absolute(repository).lexically_normal().string();
  return "backup " + std::to_string(id) + " of " + Sha256Hex(where).substr(0, 12);
}

BackupReport BackupLake(const commit::CommitStore& store, const std::string& repository,
                        const BackupProgress& progress) {
  const BackupRepository repo = BackupRepository::OpenOrCreate(repository);
  const auto ids = repo.BackupIds();
  const uint64_t id = ids.empty() ? 1 : ids.back() + 1;
  const std::string hold = BackupHoldName(repository, id);
  const auto held =
      commit::tags::CreateTag(store, {hold, std::nullopt, std::nullopt, /*hold_files=*/true});
  try {
    const auto snapshot = store.store()->GetSnapshot();
    const auto head = snapshot->Get(commit::HeadKey());
    const int64_t at = head ? commit::DecodeHeadSnapshotId(*head) : -1;
    if (held.snapshot_id != at) {
      try {
        commit::tags::MoveTag(store, hold, at);
      } catch (const store::NotFoundError&) {
        // Expired since: the files it reads stay held by batch all the same.
      }
    }
    BackupReport report =
        BackupStore(*snapshot, store.store()->location(), repository, progress, id, hold);
    report.hold = hold;
    return report;
  } catch (...) {
    try {
      commit::tags::RemoveTag(store, hold);
    } catch (const store::Error&) {
      // The backup's own error is the one to tell; the hold stays, listed.
    }
    throw;
  }
}

std::vector<std::string> ReleaseBackup(const commit::CommitStore& store,
                                       const std::string& repository, std::optional<uint64_t> id) {
  std::vector<std::string> released;
  if (id) {
    commit::tags::RemoveTag(store, BackupHoldName(repository, *id));
    released.push_back(BackupHoldName(repository, *id));
    return released;
  }
  const std::string suffix = BackupHoldName(repository, 0).substr(std::string("backup 0").size());
  for (const auto& tag : commit::tags::ListTags(store)) {
    if (tag.holds_files_after_batch && tag.name.starts_with("backup ") &&
        tag.name.ends_with(suffix)) {
      commit::tags::RemoveTag(store, tag.name);
      released.push_back(tag.name);
    }
  }
  if (released.empty()) {
    throw store::NotFoundError("no backup in " + repository + " is held in this lake");
  }
  return released;
}

namespace {

// The record of the backup's own hold, ended at the backup's snapshot, if
// `key` is that tag's; nullopt for every other record.
std::optional<std::string> EndedHold(const BackupManifest& manifest, std::string_view key,
                                     std::string_view value) {
  if (manifest.hold.empty() || !commit::tags::ProtectedTagRange().Contains(key)) {
    return std::nullopt;
  }
  const auto tag = commit::tags::DecodeProtectedTag(value);
  if (tag.name != manifest.hold || tag.ended()) return std::nullopt;
  return commit::tags::EncodeProtectedTag(tag.EndedAt(manifest.head_snapshot));
}

// Hands every record of `manifest`'s chunks to `put` (the backup's own hold
// ended), checking each chunk's record count and the total.
template <class Put>
void ReadRecords(const BackupRepository& repo, const BackupManifest& manifest, const Put& put,
                 const BackupProgress& progress) {
  uint64_t read = 0;
  for (const BackupChunk& chunk : manifest.chunks) {
    const std::string bytes = repo.ReadChunk(chunk.sha256);
    const uint64_t records =
        ForEachRecord(bytes, chunk.sha256, [&](std::string_view key, std::string_view value) {
          if (auto ended = EndedHold(manifest, key, value)) {
            put(key, *ended);
          } else {
            put(key, value);
          }
          if (++read % kProgressEvery == 0 && progress) {
            progress(read, static_cast<uint8_t>(key.empty() ? 0 : key[0]));
          }
        });
    if (records != chunk.keys) {
      throw store::CorruptionError("chunk " + chunk.sha256 + " holds " + std::to_string(records) +
                                   " records; the manifest says " + std::to_string(chunk.keys));
    }
  }
  if (read != manifest.keys) {
    throw store::CorruptionError("backup " + std::to_string(manifest.id) + " holds " +
                                 std::to_string(read) + " keys; its manifest says " +
                                 std::to_string(manifest.keys));
  }
  if (progress) progress(read, 0xFF);
}

// Collects puts and deletes into batches of at most `max_ops` operations and
// `max_bytes`, writing each full one to `store`.
class BatchWriter {
 public:
  BatchWriter(store::KvStore& store, size_t max_ops, size_t max_bytes)
      : store_(store), max_ops_(max_ops), max_bytes_(max_bytes) {}
  void Put(std::string_view key, std::string_view value) {
    batch_.Put(key, value);
    Grew(key.size() + value.size());
  }
  void Delete(std::string_view key) {
    batch_.Delete(key);
    Grew(key.size());
  }
  void Flush() {
    if (batch_.ops().empty()) return;
    store_.Write(batch_);
    store::CrashPoint("restore.batch_written");
    batch_.Clear();
    bytes_ = 0;
  }

 private:
  void Grew(size_t bytes) {
    bytes_ += bytes;
    if (batch_.ops().size() >= max_ops_ || bytes_ >= max_bytes_) Flush();
  }
  store::KvStore& store_;
  const size_t max_ops_;
  const size_t max_bytes_;
  store::WriteBatch batch_;
  size_t bytes_ = 0;
};

void RestoreIntoDirectory(const BackupRepository& repo, const BackupManifest& manifest,
                          const std::string& destination, const BackupProgress& progress) {
  const fs::path target = fs::absolute(destination).lexically_normal();
  std::error_code error;
  if (fs::exists(fs::symlink_status(target, error))) {
    throw store::InvalidArgumentError(
        destination + " exists; a restore never writes over anything: name a new directory");
  }
  if (!fs::is_directory(target.parent_path())) {
    throw store::NotFoundError("the directory " + target.parent_path().string() +
                               " that would hold " + destination + " does not exist");
  }
  // Built beside the destination, renamed into place when whole. What an
  // interrupted restore of this destination left is removed first.
  const std::string building_prefix = "." + target.filename().string() + ".restoring-";
  for (const auto& entry : fs::directory_iterator(target.parent_path())) {
    if (entry.path().filename().string().starts_with(building_prefix)) {
      fs::remove_all(entry.path(), error);
    }
  }
  const fs::path building = target.parent_path() / (building_prefix + std::to_string(::getpid()));
  try {
    {
      auto store = store::OpenKvStore({.location = building.string()});
      BatchWriter batches(*store, SIZE_MAX, kRestoreBatchBytes);
      ReadRecords(
          repo, manifest,
          [&](std::string_view key, std::string_view value) { batches.Put(key, value); }, progress);
      batches.Flush();
    }  // closed: every write synced, the engine's files complete
    store::CrashPoint("restore.before_rename");
    if (::rename(building.c_str(), target.c_str()) != 0) {
      throw store::IoError("cannot rename " + building.string() + " to " + target.string());
    }
    // The rename is the restore's last step: durable once the directory
    // holding the new entry is.
    if (const int sync_error = util::SyncDirectory(target.parent_path().string())) {
      throw store::IoError("cannot sync " + target.parent_path().string() + ": " +
                           std::strerror(sync_error));
    }
    store::CrashPoint("restore.renamed");
  } catch (...) {
    fs::remove_all(building, error);
    throw;
  }
}

// An etcd prefix has no rename: the restore marks the prefix first, writes
// every record but the format record and the head, and lands those two with
// the marker's removal last. Until then the prefix holds no catalog an
// ATTACH accepts (RequireCurrentStoreFormat refuses the marker), and only a
// restore writes over it, clearing what the interrupted one left.
void RestoreIntoEtcd(const BackupRepository& repo, const BackupManifest& manifest,
                     const std::string& destination, const BackupProgress& progress) {
  // Within etcd's default limits of 128 operations and 1.5 MiB per request.
  constexpr size_t kEtcdBatchOps = 100;
  constexpr size_t kEtcdBatchBytes = 1024 * 1024;
  // Every chunk checked before the prefix is touched: a damaged backup
  // leaves it as it was.
  ReadRecords(repo, manifest, [](std::string_view, std::string_view) {}, {});
  auto store = store::OpenKvStore({.location = destination});
  const std::string marker = store::Key::Current(store::Kind::kRestoreMarker, {}).Encode();
  BatchWriter batches(*store, kEtcdBatchOps, kEtcdBatchBytes);
  {
    const auto held = store->GetSnapshot();
    if (held->Scan(store::KeyRange{})->Valid()) {
      if (!held->Get(marker)) {
        throw store::InvalidArgumentError(
            destination +
            " holds a store; a restore never writes over anything: name a new prefix");
      }
      for (auto it = held->Scan(store::KeyRange{}); it->Valid(); it->Next()) {
        if (it->key() != marker) batches.Delete(it->key());
      }
      batches.Flush();
    }
  }
  store::v1::RestoreMarkerRecord record;
  record.set_backup_id(manifest.id);
  record.set_repository(repo.path().string());
  {
    store::WriteBatch mark;
    mark.Put(marker, store::FrameValue(store::Kind::kRestoreMarker, record));
    store->Write(mark);
  }
  std::optional<std::string> format, head;
  ReadRecords(
      repo, manifest,
      [&](std::string_view key, std::string_view value) {
        if (key == commit::FormatKey()) {
          format = value;
        } else if (key == commit::HeadKey()) {
          head = value;
        } else {
          batches.Put(key, value);
        }
      },
      progress);
  batches.Flush();
  if (!format || !head) {
    throw store::CorruptionError("backup " + std::to_string(manifest.id) +
                                 " holds no format record or head");
  }
  store::CrashPoint("restore.before_rename");
  store::WriteBatch last;
  last.Put(commit::FormatKey(), *format);
  last.Put(commit::HeadKey(), *head);
  last.Delete(marker);
  store->Write(last);
}

}  // namespace

BackupManifest RestoreStore(const std::string& repository, std::optional<uint64_t> id,
                            const std::string& destination, const BackupProgress& progress) {
  const BackupRepository repo = BackupRepository::Open(repository);
  if (!id) {
    const auto ids = repo.BackupIds();
    if (ids.empty()) throw store::NotFoundError(repository + " holds no backup");
    id = ids.back();
  }
  const BackupManifest manifest = repo.ReadManifest(*id);
  if (destination.starts_with("etcd://") || destination.starts_with("etcds://")) {
    RestoreIntoEtcd(repo, manifest, destination, progress);
  } else {
    RestoreIntoDirectory(repo, manifest, destination, progress);
  }
  return manifest;
}

}  // namespace moraine::tools
