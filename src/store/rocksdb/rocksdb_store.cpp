#include "store/rocksdb/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/listener.h>
#include <rocksdb/metadata.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "store/error.h"
#include "store/rocksdb/high_water_mark.h"
#include "store/rocksdb/log_record_check.h"
#include "store/rocksdb/memory_env.h"
#include "store/rocksdb/rocksdb_info_log.h"
#include "store/rocksdb/rocksdb_status.h"
#include "store/rocksdb/store_directory.h"
#include "store/rocksdb/store_writer_lock.h"
#include "store/rocksdb/test_hooks.h"
#include "store/rocksdb/wal_group_sync.h"
#include "util/temp_dir.h"

namespace moraine::store {

struct RocksDbHandle {
  std::shared_ptr<rocksdb::Env> env;  // null for the default (disk) Env
  std::unique_ptr<rocksdb::DB> db;
  std::string secondary_dir;  // a read-only handle's private scratch directory
  // A read-write store's instance opened read-only until its first write
  // (RocksDbStore::OpenForWritingLocked).
  bool until_first_write = false;
  // A read-write handle's log syncs, its writes landing unsynced; null for a
  // read-only one, and for an in-memory one (RocksDB's in-memory log files
  // cannot be synced apart from a write, and nothing survives their process
  // anyway): its writes sync as they land.
  std::unique_ptr<WalGroupSync> group_sync;
  // What group_sync advances: a read-write handle's on disk that syncs.
  std::unique_ptr<HighWaterMark> high_water;

  ~RocksDbHandle() {
    group_sync.reset();  // before the DB it syncs and the mark it advances
    high_water.reset();
    db.reset();  // before the Env it runs on
    if (!secondary_dir.empty() && env == nullptr) {
      std::error_code ignored;
      std::filesystem::remove_all(secondary_dir, ignored);
    }
  }
};

namespace {

rocksdb::Slice ToSlice(std::string_view bytes) { return {bytes.data(), bytes.size()}; }

// Subspace 0 is the store's own (the high-water record, the log rollover's
// tombstone): a scan from the start of the keyspace begins after it.
constexpr std::string_view kFirstServedKey = "\x01";
KeyRange ServedPart(KeyRange range) {
  if (range.begin < kFirstServedKey) range.begin = std::string(kFirstServedKey);
  return range;
}

bool IsMemoryLocation(const std::string& location) { return location.starts_with(kMemoryScheme); }

class RocksDbIterator final : public KvIterator {
 public:
  RocksDbIterator(std::shared_ptr<RocksDbHandle> handle,
                  std::shared_ptr<const rocksdb::Snapshot> snapshot, const KeyRange& range)
      : handle_(std::move(handle)),
        snapshot_(std::move(snapshot)),
        range_(ServedPart(range)),
        upper_bound_(ToSlice(range_.end)) {
    rocksdb::ReadOptions read_options;
    read_options.snapshot = snapshot_.get();
    read_options.verify_checksums = true;
    if (!range_.end.empty()) read_options.iterate_upper_bound = &upper_bound_;
    iterator_.reset(handle_->db->NewIterator(read_options));
    iterator_->Seek(ToSlice(range_.begin));
    CheckStatus();
  }

  bool Valid() const override { return iterator_->Valid(); }
  void Next() override {
    iterator_->Next();
    CheckStatus();
  }
  std::string_view key() const override { return iterator_->key().ToStringView(); }
  std::string_view value() const override { return iterator_->value().ToStringView(); }

 private:
  // An iterator that stops early because of an error must not look like the
  // end of the range: raise it instead.
  void CheckStatus() const {
    if (!iterator_->Valid()) ThrowIfError(iterator_->status(), "scan");
  }

  std::shared_ptr<RocksDbHandle> handle_;              // keeps the DB open while iterating
  std::shared_ptr<const rocksdb::Snapshot> snapshot_;  // outlives the view that made this
  KeyRange range_;
  rocksdb::Slice upper_bound_;  // must outlive iterator_
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

class RocksDbSnapshot final : public KvSnapshot {
 public:
  // A read-write instance's `snapshot`. A secondary instance cannot take
  // RocksDB snapshots (`snapshot` is null); it is frozen while a KvSnapshot
  // shares it (see GetSnapshot), so its latest state is the view.
  RocksDbSnapshot(std::shared_ptr<RocksDbHandle> handle,
                  std::shared_ptr<const rocksdb::Snapshot> snapshot)
      : handle_(std::move(handle)), snapshot_(std::move(snapshot)) {}

  std::optional<std::string> Get(std::string_view key) const override {
    rocksdb::ReadOptions read_options;
    read_options.snapshot = snapshot_.get();
    read_options.verify_checksums = true;
    std::string value;
    rocksdb::Status status = handle_->db->Get(read_options, ToSlice(key), &value);
    if (status.IsNotFound()) return std::nullopt;
    ThrowIfError(status, "get");
    return value;
  }

  std::unique_ptr<KvIterator> Scan(const KeyRange& range) const override {
    return std::make_unique<RocksDbIterator>(handle_, snapshot_, range);
  }

  std::optional<std::string> LastKeyIn(const KeyRange& whole_range) const override {
    const KeyRange range = ServedPart(whole_range);
    rocksdb::ReadOptions read_options;
    read_options.snapshot = snapshot_.get();
    read_options.verify_checksums = true;
    const rocksdb::Slice lower = ToSlice(range.begin);
    read_options.iterate_lower_bound = &lower;
    const rocksdb::Slice upper = ToSlice(range.end);
    if (!range.end.empty()) read_options.iterate_upper_bound = &upper;
    std::unique_ptr<rocksdb::Iterator> iterator(handle_->db->NewIterator(read_options));
    // The bounds keep the seek inside the range: SeekToLast lands on its
    // greatest key, or nowhere when it holds none.
    iterator->SeekToLast();
    if (!iterator->Valid()) {
      ThrowIfError(iterator->status(), "seek");
      return std::nullopt;
    }
    return iterator->key().ToString();
  }

 private:
  std::shared_ptr<RocksDbHandle> handle_;  // keeps the DB open; declared first, released last
  std::shared_ptr<const rocksdb::Snapshot> snapshot_;  // null for a secondary instance
};

// Turns RocksDB's own recovery from a write error off: it polls for free
// space in the background and, while it runs, refuses the Resume() that
// RecoverFromFailedWriteLocked calls. With it off, recovery happens exactly when the next
// commit asks for it, and that commit learns whether it worked.
class ResumeOnNextWrite final : public rocksdb::EventListener {
 public:
  void OnErrorRecoveryBegin(rocksdb::BackgroundErrorReason, rocksdb::Status,
                            bool* auto_recovery) override {
    *auto_recovery = false;
  }
};

rocksdb::Options BaseOptions(rocksdb::Env* env, std::shared_ptr<rocksdb::Logger> info_log) {
  rocksdb::Options rocks;
  rocks.create_if_missing = false;  // creation is decided by Open, never by RocksDB
  rocks.paranoid_checks = true;
  // Refuse a log record that fails its checksum instead of replaying up to it
  // and dropping every later, acknowledged commit (RocksDB's default,
  // point-in-time recovery). Only an incomplete last record is tolerated: it
  // is a write torn by a crash, and a torn write was never acknowledged,
  // since every write is synced before it is acknowledged.
  rocks.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // The manifest records every synced log, so a log that went missing or
  // lost synced bytes is refused at open instead of replayed short.
  rocks.track_and_verify_wals_in_manifest = true;
  rocks.keep_log_file_num = 4;
  rocks.max_open_files = -1;  // required by secondary instances; the catalog is small
  // Open loads every table file's handler, on this many threads: RocksDB's
  // default of 16 started 15 threads at every ATTACH to open the catalog's
  // one or few table files.
  rocks.max_file_opening_threads = 1;
  // A session's first query reads whole ranges of a cold store (every
  // table's rows at ATTACH, every inlined batch of a scanned table): blocks
  // stored uncompressed and four times RocksDB's default size cut that
  // read's CPU by a fifth (issue #32; the catalog is small beside its
  // Parquet, so the bytes are worth it). Table files written before keep
  // their compression until compacted; RocksDB reads both.
  rocks.compression = rocksdb::kNoCompression;
  rocksdb::BlockBasedTableOptions table;
  table.block_size = 16 * 1024;
  rocks.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  if (env != nullptr) rocks.env = env;
  rocks.info_log = std::move(info_log);
  rocks.listeners.push_back(std::make_shared<ResumeOnNextWrite>());
  if (FileHooksArmed()) rocks.listeners.push_back(TestHookListener());
  return rocks;
}

// The info log for a directory store (see RocksDbInfoLog); the default for
// in-memory ones, which cannot run out of disk.
std::shared_ptr<rocksdb::Logger> InfoLogFor(rocksdb::Env* memory_env, const std::string& dir) {
  return memory_env == nullptr ? RocksDbInfoLog::Open(dir) : nullptr;
}

// Every table file the open version lists must be there, whole. A read-write
// open checks this itself (paranoid checks); a secondary instance tolerates
// missing files, since its primary deletes them as it compacts, and would
// otherwise serve an older catalog than the store holds.
std::optional<std::string> MissingOrShortTableFile(rocksdb::DB& db, rocksdb::Env& env) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db.GetLiveFilesMetaData(&files);
  for (const auto& file : files) {
    const std::string path = file.directory + "/" + file.relative_filename;
    uint64_t size = 0;
    rocksdb::Status status = env.GetFileSize(path, &size);
    if (!status.ok()) return "table file " + file.relative_filename + " is missing";
    if (size != file.size) {
      return "table file " + file.relative_filename + " has " + std::to_string(size) +
             " bytes, the store's manifest records " + std::to_string(file.size);
    }
  }
  return std::nullopt;
}

std::string DamagedStoreMessage(const std::string& location, const std::string& what) {
  return "moraine store at '" + location +
         "' is damaged and was not opened (nothing was changed): " + what +
         ". Restore it from a backup, or salvage what is readable with `moraine repair " +
         location + "`";
}

// Throws for a failed open: a lock is the other writer, corruption names the
// damage and the way out, anything else keeps RocksDB's words.
void ThrowOpenError(const rocksdb::Status& status, const std::string& location,
                    std::string_view mode) {
  if (IsLockError(status)) throw StoreLockedError(StoreWriterLock::HeldElsewhereMessage(location));
  if (status.IsCorruption())
    throw CorruptionError(DamagedStoreMessage(location, status.ToString()));
  ThrowIfError(status, "cannot open moraine store at '" + location + "' " + std::string(mode));
}

// A scratch directory for a secondary instance's own info log.
std::string MakeSecondaryDir(rocksdb::Env* memory_env) {
  static std::atomic<uint64_t> counter{0};
  if (memory_env != nullptr) {
    std::string dir = "/moraine-secondary/" + std::to_string(counter.fetch_add(1));
    memory_env->CreateDirIfMissing("/moraine-secondary");
    ThrowIfError(memory_env->CreateDirIfMissing(dir), "create " + dir);
    return dir;
  }
  try {
    return util::CreateTempDir("moraine-secondary-").string();
  } catch (const std::system_error&) {
    throw IoError("cannot create a scratch directory for a read-only open");
  }
}

// Brings a secondary instance up to its primary and checks what it now
// serves. A file the primary deleted between the catch-up's manifest read and
// the check is a race, not damage: one more catch-up moves past it.
void CatchUpAndVerify(RocksDbHandle& handle, const std::string& location) {
  rocksdb::Env& env = handle.env ? *handle.env : *rocksdb::Env::Default();
  for (int attempt = 0;; ++attempt) {
    rocksdb::Status status = handle.db->TryCatchUpWithPrimary();
    if (status.IsCorruption())
      throw CorruptionError(DamagedStoreMessage(location, status.ToString()));
    ThrowIfError(status, "catch up with the writer of '" + location + "'");
    auto problem = MissingOrShortTableFile(*handle.db, env);
    if (!problem) return;
    if (attempt == 1) throw CorruptionError(DamagedStoreMessage(location, *problem));
  }
}

// A read-only instance of the store at `path`, opened as RocksDB's
// read-write open would check it (every table file there and whole, every
// log record intact) but changing nothing, and what is wrong with it: its
// open's status, or how it falls short of the store's high-water mark.
struct CheckedInstance {
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::Status status;
  std::optional<std::string> shortfall;
};

CheckedInstance OpenForReadOnlyChecked(rocksdb::Env* memory_env,
                                       std::shared_ptr<rocksdb::Logger> info_log,
                                       const KvOptions& options, const std::string& path) {
  // Read before the open: the instance then holds at least every write the
  // mark covers, even while a writer advances it (see high_water_mark.h).
  std::optional<uint64_t> mark;
  if (memory_env == nullptr) {
    try {
      mark = HighWaterMark::Read(*rocksdb::Env::Default(), path);
    } catch (const CorruptionError& error) {
      throw CorruptionError(DamagedStoreMessage(options.location, error.what()));
    }
  }
  CheckedInstance checked;
  rocksdb::DB* db = nullptr;
  checked.status =
      rocksdb::DB::OpenForReadOnly(BaseOptions(memory_env, std::move(info_log)), path, &db);
  checked.db.reset(db);
  if (checked.status.ok() && memory_env == nullptr)
    checked.shortfall = HighWaterShortfall(*checked.db, mark);
  return checked;
}

// The same, throwing what is wrong.
std::unique_ptr<rocksdb::DB> OpenForReadOnlyReachingHighWater(const KvOptions& options,
                                                              const std::string& path) {
  auto checked = OpenForReadOnlyChecked(nullptr, InfoLogFor(nullptr, path), options, path);
  if (!checked.status.ok()) ThrowOpenError(checked.status, options.location, "read-write");
  if (checked.shortfall)
    throw CorruptionError(DamagedStoreMessage(options.location, *checked.shortfall));
  return std::move(checked.db);
}

// A secondary instance serves the newest state whose files it can find and
// says nothing of the rest, so a read-only open first opens the store the way
// a writer would check it, without taking the lock, and closes that instance
// again. A live writer may delete a file between the manifest read and the
// check (a log it flushed, with the manifest read before the flush): a second
// attempt moves past it.
void VerifyAsAWriterWould(RocksDbHandle& handle, const KvOptions& options,
                          const std::string& path) {
  for (int attempt = 0;; ++attempt) {
    auto checked = OpenForReadOnlyChecked(
        handle.env.get(), InfoLogFor(handle.env.get(), handle.secondary_dir), options, path);
    if (checked.status.ok() && !checked.shortfall) return;
    if (attempt == 0 && (checked.status.IsCorruption() || checked.shortfall)) continue;
    if (!checked.status.ok()) ThrowOpenError(checked.status, options.location, "read-only");
    throw CorruptionError(DamagedStoreMessage(options.location, *checked.shortfall));
  }
}

// `verify`: check the store as a writer would first (at Open; the instances
// GetSnapshot adds later are caught up and checked as every catch-up is).
void OpenSecondaryInto(RocksDbHandle* handle, const KvOptions& options, const std::string& path,
                       bool verify) {
  handle->secondary_dir = MakeSecondaryDir(handle->env.get());
  if (verify) VerifyAsAWriterWould(*handle, options, path);
  rocksdb::DB* db = nullptr;
  rocksdb::Status status = rocksdb::DB::OpenAsSecondary(
      BaseOptions(handle->env.get(), InfoLogFor(handle->env.get(), handle->secondary_dir)), path,
      handle->secondary_dir, &db);
  if (!status.ok()) ThrowOpenError(status, options.location, "read-only");
  handle->db.reset(db);
  CatchUpAndVerify(*handle, options.location);
}

// Removes what a failed creation left: the directory itself if Open made it,
// else its contents (it was empty before).
void UndoCreation(const std::string& path, DirectoryState before) {
  std::error_code ignored;
  if (before == DirectoryState::kAbsent) {
    std::filesystem::remove_all(path, ignored);
    return;
  }
  for (const auto& entry : std::filesystem::directory_iterator(path, ignored)) {
    std::filesystem::remove_all(entry.path(), ignored);
  }
}

// What a writer leaves when it closes, so that the next open has nothing to
// replay and no background work to run while a user waits on an ATTACH:
//
// - A session that wrote flushes its memtable into a table file. RocksDB
//   itself flushes only when a memtable fills (64 MiB), so without this the
//   next open replays every commit since the last flush and writes it to a
//   table file before it returns (1.1 s of CPU after 65,000 one-row commits).
// - A session that wrote nothing still leaves the log its open started:
//   RocksDB 7.8 keeps a log until a flush moves past it, and an empty memtable
//   does not flush, so every later open would list, check and replay them all.
//   Once more than a few have gathered, one synced tombstone for a key no
//   record uses (subspace 0 is no subspace) gives the flush something to
//   write, and RocksDB drops the logs.
// - A session whose writes rewrote a large share of the store (a DuckLake
//   DELETE or UPDATE of many inlined rows rewrites every batch it touches)
//   merges level 0 down: RocksDB would wait for four level-0 files, and until
//   then every scan reads each rewritten key twice and skips the old version
//   (a full scan of 200,000 inlined rows after such a DELETE and UPDATE took
//   22.5 ms instead of 18.8). One level-0 file is enough: RocksDB may have
//   moved the store's older files down already. Only when level 0 holds at
//   least an eighth of the store's bytes, so that the merge rewrites at most
//   eight times what the sessions wrote, and at least kLevelZeroMergeFloor:
//   a merge syncs its files and the manifest (about 1 ms of wall time per
//   commit of `make bench-stock`'s 50-commit sessions, on a small lake where
//   every session's file is an eighth), while a second read of a few MiB of
//   rewritten keys costs a scan less than a millisecond or two.
// - Then it lets every compaction RocksDB wants finish. RocksDB schedules
//   them as a flush fills level 0, and as the release of a session's first
//   snapshot marks the bottommost files whose deletions can be dropped; a
//   session shorter than the compaction cancels it as it closes, and the next
//   session starts it again, on RocksDB's threads, during its attach: about
//   30 ms of CPU at every ATTACH of a 100,000-snapshot lake, for a compaction
//   that never finished.
//
// Best effort and bounded: a crash at any point leaves what a crash before
// the close leaves (each step is atomic in RocksDB), and a failure or a
// compaction still running at the deadline leaves the work to the next open.
constexpr size_t kLogsKeptBeforeRollover = 4;
constexpr std::string_view kLogRolloverKey = std::string_view("\0log-rollover", 13);
constexpr auto kCompactionWaitAtClose = std::chrono::seconds(10);
// Level 0 is merged down at a close when it holds at least 1/kLevelZeroShare
// of the store's table file bytes, and at least kLevelZeroMergeFloor bytes.
constexpr uint64_t kLevelZeroShare = 8;
constexpr uint64_t kLevelZeroMergeFloor = 4 << 20;

size_t LogFilesIn(rocksdb::Env& env, const std::string& path) {
  // Listed from the directory: RocksDB's own list of logs leaves out empty ones.
  std::vector<std::string> children;
  if (!env.GetChildren(path, &children).ok()) return 0;
  size_t logs = 0;
  for (const std::string& child : children) logs += child.ends_with(".log") ? 1 : 0;
  return logs;
}

// Whether a log in the store directory holds records: a writer that closes
// cleanly flushes its memtable, which leaves its logs empty, so this is what
// a crash (or a close that could not flush) left to replay.
bool LogsHoldRecords(const std::string& path) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    if (entry.path().extension() != ".log") continue;
    std::error_code size_error;
    const auto size = entry.file_size(size_error);
    if (size_error || size > 0) return true;
  }
  return static_cast<bool>(error);  // unlistable: let the read-write open decide
}

// Whether the memtable was flushed (or had nothing worth flushing).
bool FlushWhatTheSessionLeft(rocksdb::DB& db, rocksdb::Env& env, const std::string& path,
                             bool wrote) {
  if (!wrote) {
    if (LogFilesIn(env, path) <= kLogsKeptBeforeRollover) return true;
    rocksdb::WriteBatch batch;
    if (!batch.Delete(ToSlice(kLogRolloverKey)).ok()) return false;
    rocksdb::WriteOptions write_options;
    write_options.sync = true;
    if (!db.Write(write_options, &batch).ok()) return false;
  }
  CrashPoint("close.before_flush");
  if (!db.Flush(rocksdb::FlushOptions()).ok()) return false;
  if (!wrote) {
    // Each rollover's file holds one tombstone of the same key, and RocksDB
    // moves such files down a level unmerged (their internal keys differ), so
    // they would gather one file per rollover. Compacted together at the
    // bottom, the tombstones cover nothing and vanish with their files.
    rocksdb::CompactRangeOptions all_the_way_down;
    all_the_way_down.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    const rocksdb::Slice key = ToSlice(kLogRolloverKey);
    db.CompactRange(all_the_way_down, &key, &key).PermitUncheckedError();
  }
  return true;
}

void WaitForCompactions(rocksdb::DB& db) {
  // RocksDB marks bottommost files for compaction when the oldest snapshot
  // moves past them, at a snapshot's release, as the next session's first
  // transaction would: do it now, so that compaction is scheduled here.
  db.ReleaseSnapshot(db.GetSnapshot());
  const auto deadline = std::chrono::steady_clock::now() + kCompactionWaitAtClose;
  for (;;) {
    uint64_t pending = 0;
    uint64_t running = 0;
    if (!db.GetIntProperty(rocksdb::DB::Properties::kCompactionPending, &pending) ||
        !db.GetIntProperty(rocksdb::DB::Properties::kNumRunningCompactions, &running)) {
      return;
    }
    if ((pending == 0 && running == 0) || std::chrono::steady_clock::now() >= deadline) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// Merges level 0 into the levels below where it holds a large share of the
// store (see kLevelZeroShare).
void MergeALargeLevelZero(rocksdb::DB& db) {
  std::vector<rocksdb::LiveFileMetaData> files;
  db.GetLiveFilesMetaData(&files);
  uint64_t level_zero_bytes = 0, bytes = 0;
  for (const auto& file : files) {
    bytes += file.size;
    if (file.level == 0) level_zero_bytes += file.size;
  }
  if (level_zero_bytes < kLevelZeroMergeFloor || level_zero_bytes * kLevelZeroShare < bytes) {
    return;
  }
  db.CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr).PermitUncheckedError();
}

void LeaveNothingForTheNextOpen(rocksdb::DB& db, rocksdb::Env& env, const std::string& path,
                                bool wrote) {
  if (!FlushWhatTheSessionLeft(db, env, path, wrote)) return;
  if (wrote) MergeALargeLevelZero(db);
  WaitForCompactions(db);
}

// Opens the high-water file a writer advances, creating it when the store
// keeps none yet (a new store, or one an earlier build wrote), and then the
// record that says the store keeps one: in that order, so that a crash
// between the two leaves a file and no record, which a later writer
// completes, never a record without its file.
std::unique_ptr<HighWaterMark> KeepHighWaterMark(rocksdb::DB& db, const std::string& path) {
  auto mark = HighWaterMark::OpenOrCreate(*db.GetEnv(), path, db.GetLatestSequenceNumber());
  if (HighWaterRecorded(db)) return mark;
  // Unsynced: the next commit's log sync carries it, and until then its
  // loss leaves a file without a record, as a crash before the write would.
  ThrowIfError(db.Put(rocksdb::WriteOptions(), ToSlice(kHighWaterKeptKey), "1"),
               "record the high-water file");
  return mark;
}

// Opens the read-write instance; `before` is what Open found at the location
// (kAbsent or kEmpty: create the store, removing it again on failure).
void OpenWriterInto(RocksDbHandle& handle, const KvOptions& options, const std::string& path,
                    DirectoryState before) {
  rocksdb::Env* memory_env = handle.env.get();
  const bool create = before == DirectoryState::kAbsent || before == DirectoryState::kEmpty;
  if (create && memory_env == nullptr) {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) {
      throw IoError("cannot create moraine store directory '" + options.location +
                    "': " + error.message());
    }
  }
  rocksdb::Env* engine_env = memory_env;
  if (memory_env == nullptr && FileHooksArmed()) engine_env = TestHookEnv();
  rocksdb::Options rocks = BaseOptions(engine_env, InfoLogFor(memory_env, path));
  rocks.create_if_missing = create;
  rocksdb::DB* db = nullptr;
  rocksdb::Status status = rocksdb::DB::Open(rocks, path, &db);
  if (!status.ok()) {
    rocks.info_log.reset();  // close LOG before removing it
    // Another writer's lock means the directory is theirs now: leave it.
    if (create && !IsLockError(status) && memory_env == nullptr) UndoCreation(path, before);
    ThrowOpenError(status, options.location, "read-write");
  }
  handle.db.reset(db);
  if (memory_env == nullptr && options.sync) {
    try {
      handle.high_water = KeepHighWaterMark(*db, path);
    } catch (const Error&) {
      handle.db.reset();
      if (create) UndoCreation(path, before);
      throw;
    }
    handle.group_sync = std::make_unique<WalGroupSync>(*db, handle.high_water.get());
  }
}

// Opens a read-write store's instance read-only, for the reads before its
// first write (RocksDbStore::Open says why). RocksDB checks the store as a
// writer's open would: every table file there and whole, every log record
// intact (the log is replayed into memory; nothing is written).
void OpenUntilFirstWriteInto(RocksDbHandle& handle, const KvOptions& options,
                             const std::string& path) {
  handle.db = OpenForReadOnlyReachingHighWater(options, path);
  handle.until_first_write = true;
}

}  // namespace

// A batch applied to one instance at `sequence`, durable once that instance
// has synced its log past it.
class RocksDbLandedWrite final : public LandedWrite {
 public:
  RocksDbLandedWrite(RocksDbStore& store, std::shared_ptr<RocksDbHandle> handle,
                     rocksdb::SequenceNumber sequence)
      : store_(store), handle_(std::move(handle)), sequence_(sequence) {}
  void AwaitDurable() override { store_.AwaitDurable(*handle_, sequence_); }

 private:
  RocksDbStore& store_;
  std::shared_ptr<RocksDbHandle> handle_;
  rocksdb::SequenceNumber sequence_;
};

std::unique_ptr<RocksDbStore> RocksDbStore::Open(const KvOptions& options) {
  auto handle = std::make_shared<RocksDbHandle>();
  std::string path = options.location;
  if (IsMemoryLocation(options.location)) {
    std::string_view name = std::string_view(options.location).substr(kMemoryScheme.size());
    handle->env = MemoryEnvFor(name);
    path = "/moraine/" + (name.empty() ? std::string("private") : std::string(name));
  } else if (path.empty()) {
    throw InvalidArgumentError("store location is empty");
  }
  rocksdb::Env* memory_env = handle->env.get();

  // What is at the location decides between opening and creating; nothing
  // but an absent or empty directory is ever created into.
  DirectoryState before = DirectoryState::kStore;
  if (memory_env != nullptr) {
    if (!memory_env->FileExists(path + "/CURRENT").ok()) before = DirectoryState::kAbsent;
  } else {
    const DirectoryInspection inspection = InspectStoreDirectory(path);
    before = inspection.state;
    if (before == DirectoryState::kMissingCurrent) {
      throw CorruptionError(RefusalMessage(inspection, options.location));
    }
    if (before == DirectoryState::kForeign || before == DirectoryState::kNotADirectory) {
      throw InvalidArgumentError(RefusalMessage(inspection, options.location));
    }
    if (before == DirectoryState::kStore) {
      if (auto foreign = FindForeignLogRecord(path)) {
        throw CorruptionError(DamagedStoreMessage(options.location, *foreign));
      }
    }
  }
  const bool create = before == DirectoryState::kAbsent || before == DirectoryState::kEmpty;
  if (create && (options.read_only || !options.create_if_missing)) {
    throw NotFoundError("no moraine store at '" + options.location + "'");
  }

  std::unique_ptr<StoreWriterLock> writer_lock;
  if (options.read_only) {
    OpenSecondaryInto(handle.get(), options, path, /*verify=*/true);
  } else if (memory_env == nullptr && !create && !LogsHoldRecords(path)) {
    // A writer of a store on disk opens it read-only and becomes a writer at
    // its first write: RocksDB's read-write open writes and syncs an options
    // file, a new manifest and a new log (about 3 ms of CPU, most of an
    // ATTACH), which a session that only reads never needs. The lock is
    // taken now, so a second writer is still refused at its open. (A log
    // with records left by a session that did not close cleanly is
    // recovered at once, by a read-write open that flushes it, so that
    // sessions which only read do not each replay it.)
    writer_lock = std::make_unique<StoreWriterLock>(path, options.location);
    OpenUntilFirstWriteInto(*handle, options, path);
  } else {
    // A store with logs to recover is checked against its high-water mark
    // before RocksDB's read-write open, which deletes the files the store's
    // manifest does not list (those a short manifest lost among them).
    if (memory_env == nullptr && !create) OpenForReadOnlyReachingHighWater(options, path);
    OpenWriterInto(*handle, options, path, before);
    // Every writer on disk holds the lock, so that another handle of this
    // process that would open read-only until its first write is refused as
    // RocksDB refuses a second writer (RocksDB's lock is the process's).
    if (memory_env == nullptr)
      writer_lock = std::make_unique<StoreWriterLock>(path, options.location);
  }
  return std::unique_ptr<RocksDbStore>(
      new RocksDbStore(options, std::move(path), std::move(writer_lock), std::move(handle)));
}

RocksDbStore::RocksDbStore(KvOptions options, std::string path,
                           std::unique_ptr<StoreWriterLock> writer_lock,
                           std::shared_ptr<RocksDbHandle> handle)
    : options_(std::move(options)),
      path_(std::move(path)),
      writer_lock_(std::move(writer_lock)),
      handle_(std::move(handle)) {}

RocksDbStore::~RocksDbStore() {
  if (options_.read_only) return;
  std::lock_guard lock(mutex_);
  // An instance still read-only wrote nothing and started no log.
  if (!handle_ || !handle_->db || write_failed_.load() || handle_->until_first_write) return;
  LeaveNothingForTheNextOpen(*handle_->db, *handle_->db->GetEnv(), path_, wrote_);
}

std::shared_ptr<RocksDbHandle> RocksDbStore::CurrentHandle() const {
  std::lock_guard lock(handle_mutex_);
  return handle_;
}

std::unique_ptr<KvSnapshot> RocksDbStore::GetSnapshot() {
  if (!options_.read_only) {
    // Only what is durable: a reader must not act on a commit a crash could
    // still take back. It does not wait for a sync running now.
    auto handle = WriterHandle();
    auto view =
        handle->group_sync ? handle->group_sync->DurableView() : NewestSnapshotOf(*handle->db);
    return std::make_unique<RocksDbSnapshot>(std::move(handle), std::move(view));
  }
  // A secondary instance supports no RocksDB snapshots, so a read-only view is
  // an instance nobody moves: catch the current one up only while no snapshot
  // shares it; otherwise leave it frozen for its holders and open a fresh,
  // caught-up instance for this and later snapshots.
  std::lock_guard lock(mutex_);
  if (handle_.use_count() == 1) {
    // use_count() is a relaxed read: the fence orders the catch-up after the
    // last reads of a snapshot released on another thread.
    std::atomic_thread_fence(std::memory_order_acquire);
    CatchUpAndVerify(*handle_, options_.location);
  } else {
    auto fresh = std::make_shared<RocksDbHandle>();
    fresh->env = handle_->env;
    OpenSecondaryInto(fresh.get(), options_, path_, /*verify=*/false);
    std::lock_guard swap(handle_mutex_);
    handle_ = std::move(fresh);
  }
  return std::make_unique<RocksDbSnapshot>(handle_, nullptr);
}

std::unique_ptr<KvSnapshot> RocksDbStore::GetSnapshotForCommit() {
  if (options_.read_only) return GetSnapshot();
  auto handle = WriterHandle();
  auto view = NewestSnapshotOf(*handle->db);
  return std::make_unique<RocksDbSnapshot>(std::move(handle), std::move(view));
}

std::shared_ptr<RocksDbHandle> RocksDbStore::WriterHandle() {
  // A transaction that begins after a failed write is the moment to
  // recover: the transactions that read the old instance have ended.
  // (Checked without the write lock first: a snapshot never waits behind a
  // commit.)
  if (write_failed_.load()) {
    std::lock_guard lock(mutex_);
    if (write_failed_.load()) RecoverFromFailedWriteLocked();
  }
  auto handle = CurrentHandle();
  if (!handle->db) {
    std::lock_guard lock(mutex_);  // for recovery_error_
    throw IoError("moraine store at '" + options_.location +
                  "' could not be reopened after a failed write: " + recovery_error_);
  }
  return handle;
}

void RocksDbStore::AwaitDurable(RocksDbHandle& handle, uint64_t sequence) {
  // No group sync: a store that asked for no syncs (benchmarks of the
  // engine), or whose writes synced as they landed (in memory).
  if (!handle.group_sync) return;
  try {
    handle.group_sync->AwaitDurable(sequence);
  } catch (const IoError&) {
    // Only the instance the failed sync belonged to needs recovering; one
    // reopened since is sound.
    std::lock_guard lock(mutex_);
    if (handle_.get() == &handle) write_failed_ = true;
    throw;
  }
}

bool RocksDbStore::RecoverFromFailedWriteLocked() {
  // ENOSPC is a hard error RocksDB resumes from once space returns; an I/O
  // error on the log is fatal to the open instance, and so is a failed log
  // sync (RocksDB would resume with the unsynced batches in its memtable).
  // Then the store is closed and opened again, which replays the log, as
  // soon as no snapshot still reads the old instance.
  if (handle_->db) {
    const auto failed_sync = handle_->group_sync ? handle_->group_sync->failure() : std::nullopt;
    rocksdb::Status resumed = failed_sync
                                  ? rocksdb::Status::IOError("a log sync failed", *failed_sync)
                                  : handle_->db->Resume();
    if (resumed.ok()) {
      write_failed_ = false;
      return true;
    }
    recovery_error_ = resumed.ToString();
    std::shared_ptr<RocksDbHandle> old;
    {
      std::lock_guard swap(handle_mutex_);
      if (handle_.use_count() > 1) return false;
      std::atomic_thread_fence(std::memory_order_acquire);  // as in GetSnapshot
      old = std::move(handle_);
      // Until the reopen succeeds, an instance-less handle: snapshots refuse.
      handle_ = std::make_shared<RocksDbHandle>();
      handle_->env = old->env;
    }
    old.reset();  // closes the instance and releases its lock
  }
  auto fresh = std::make_shared<RocksDbHandle>();
  fresh->env = handle_->env;
  try {
    OpenWriterInto(*fresh, options_, path_, DirectoryState::kStore);
  } catch (const Error& error) {
    recovery_error_ = error.what();
    return false;  // still no instance; the next transaction tries again
  }
  {
    std::lock_guard swap(handle_mutex_);
    handle_ = std::move(fresh);
  }
  write_failed_ = false;
  return true;
}

void RocksDbStore::OpenForWritingLocked() {
  auto writer = std::make_shared<RocksDbHandle>();
  OpenWriterInto(*writer, options_, path_, DirectoryState::kStore);
  // Snapshots of the read-only instance keep it open and read on: nothing
  // was written in between (the lock kept every other writer out), and its
  // table files stay readable after the writer's compactions delete them
  // (it opened every one; the catalog's options keep all files open).
  std::lock_guard swap(handle_mutex_);
  handle_ = std::move(writer);
}

void RocksDbStore::RequireWritableLocked() {
  if (options_.read_only) throw ReadOnlyError("store at " + options_.location + " is read-only");
  if (handle_->until_first_write) OpenForWritingLocked();
  if (write_failed_.load() && !RecoverFromFailedWriteLocked()) {
    throw IoError("moraine store at '" + options_.location +
                  "' cannot write since an earlier write failed (" + recovery_error_ +
                  "); it recovers once the cause is cleared and the transactions reading it "
                  "have ended");
  }
}

uint64_t RocksDbStore::ApplyLocked(const WriteBatch& batch) {
  rocksdb::WriteBatch rocks_batch;
  for (const WriteBatch::Op& op : batch.ops()) {
    rocksdb::Status status = op.type == WriteBatch::OpType::kPut
                                 ? rocks_batch.Put(ToSlice(op.key), ToSlice(op.value))
                                 : rocks_batch.Delete(ToSlice(op.key));
    ThrowIfError(status, "build write batch");
  }
  // Unsynced where the log can be synced apart: outside the write lock, for
  // every write that landed by then (AwaitDurable), so the next commit need
  // not wait.
  rocksdb::WriteOptions write_options;
  write_options.sync = options_.sync && !handle_->group_sync;
  CrashPoint("commit.before_write");
  rocksdb::Status status = handle_->db->Write(write_options, &rocks_batch);
  if (!status.ok()) {
    write_failed_ = true;
    ThrowIfError(status, "cannot write to moraine store at '" + options_.location + "'");
  }
  wrote_ = true;
  CrashPoint("commit.after_write");
  // Writes are applied one at a time under mutex_: the newest is this one.
  return handle_->db->GetLatestSequenceNumber();
}

void RocksDbStore::Write(const WriteBatch& batch) {
  std::shared_ptr<RocksDbHandle> handle;
  uint64_t sequence = 0;
  {
    std::lock_guard lock(mutex_);
    RequireWritableLocked();
    sequence = ApplyLocked(batch);
    handle = handle_;
  }
  AwaitDurable(*handle, sequence);
}

bool RocksDbStore::WriteIfHeadUnchanged(std::string_view head_key,
                                        const std::optional<std::string>& expected_head_value,
                                        const WriteBatch& batch) {
  auto landed = LandIfHeadUnchanged(head_key, expected_head_value, batch);
  if (!landed) return false;
  landed->AwaitDurable();
  return true;
}

std::unique_ptr<LandedWrite> RocksDbStore::LandIfHeadUnchanged(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const WriteBatch& batch) {
  std::lock_guard lock(mutex_);
  RequireWritableLocked();
  std::string current;
  rocksdb::Status status = handle_->db->Get(rocksdb::ReadOptions(), ToSlice(head_key), &current);
  std::optional<std::string> head;
  if (!status.IsNotFound()) {
    ThrowIfError(status, "read head");
    head = std::move(current);
  }
  if (head != expected_head_value) return nullptr;
  const uint64_t sequence = ApplyLocked(batch);
  return std::make_unique<RocksDbLandedWrite>(*this, handle_, sequence);
}

void RocksDbStore::Flush() {
  std::lock_guard lock(mutex_);
  RequireWritableLocked();
  ThrowIfError(handle_->db->Flush(rocksdb::FlushOptions()), "flush");
}

void RocksDbStore::Repair(const std::string& location) {
  const DirectoryInspection inspection = InspectStoreDirectory(location);
  if (inspection.state != DirectoryState::kStore &&
      inspection.state != DirectoryState::kMissingCurrent) {
    throw NotFoundError("no moraine store at '" + location + "' to repair");
  }
  const std::string open_message =
      "moraine store at '" + location + "' is open; close every session on it before repairing it";
  // Also a writer of this process that has not written yet, which holds
  // only this lock.
  std::optional<StoreWriterLock> lock;
  try {
    lock.emplace(location, location);
  } catch (const StoreLockedError&) {
    throw StoreLockedError(open_message);
  }
  rocksdb::Env* env = FileHooksArmed() ? TestHookEnv() : rocksdb::Env::Default();
  rocksdb::Options rocks = BaseOptions(env, nullptr);
  rocksdb::Status status = rocksdb::RepairDB(location, rocks);
  if (IsLockError(status)) throw StoreLockedError(open_message);
  ThrowIfError(status, "cannot repair moraine store at '" + location + "'");
  // The salvaged store may end before the old mark: the mark starts again
  // from what it holds now.
  rocksdb::DB* db = nullptr;
  ThrowIfError(rocksdb::DB::OpenForReadOnly(rocks, location, &db),
               "cannot open the repaired store at '" + location + "'");
  std::unique_ptr<rocksdb::DB> closes(db);
  HighWaterMark::Reset(*env, location, db->GetLatestSequenceNumber());
}

}  // namespace moraine::store
