#include "store/rocksdb_store.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "store/error.h"
#include "store/memory_env.h"
#include "store/rocksdb_status.h"

namespace moraine::store {

struct RocksDbHandle {
  std::shared_ptr<rocksdb::Env> env;  // null for the default (disk) Env
  std::unique_ptr<rocksdb::DB> db;
  std::string secondary_dir;  // a read-only handle's private scratch directory

  ~RocksDbHandle() {
    db.reset();  // before the Env it runs on
    if (!secondary_dir.empty() && env == nullptr) {
      std::error_code ignored;
      std::filesystem::remove_all(secondary_dir, ignored);
    }
  }
};

namespace {

rocksdb::Slice ToSlice(std::string_view bytes) { return {bytes.data(), bytes.size()}; }

bool IsMemoryLocation(const std::string& location) { return location.starts_with(kMemoryScheme); }

class RocksDbIterator final : public KvIterator {
 public:
  RocksDbIterator(std::shared_ptr<RocksDbHandle> handle, const rocksdb::Snapshot* snapshot,
                  const KeyRange& range)
      : handle_(std::move(handle)), range_(range), upper_bound_(ToSlice(range_.end)) {
    rocksdb::ReadOptions read_options;
    read_options.snapshot = snapshot;
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

  std::shared_ptr<RocksDbHandle> handle_;  // keeps the DB open while iterating
  KeyRange range_;
  rocksdb::Slice upper_bound_;  // must outlive iterator_
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

class RocksDbSnapshot final : public KvSnapshot {
 public:
  // A secondary instance cannot take RocksDB snapshots; it is frozen while a
  // KvSnapshot shares it (see GetSnapshot), so its latest state is the view.
  explicit RocksDbSnapshot(std::shared_ptr<RocksDbHandle> handle)
      : handle_(std::move(handle)),
        snapshot_(handle_->secondary_dir.empty() ? handle_->db->GetSnapshot() : nullptr) {}
  ~RocksDbSnapshot() override {
    if (snapshot_ != nullptr) handle_->db->ReleaseSnapshot(snapshot_);
  }

  std::optional<std::string> Get(std::string_view key) const override {
    rocksdb::ReadOptions read_options;
    read_options.snapshot = snapshot_;
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

 private:
  std::shared_ptr<RocksDbHandle> handle_;
  const rocksdb::Snapshot* snapshot_;
};

rocksdb::Options BaseOptions(const KvOptions& options, rocksdb::Env* env) {
  rocksdb::Options rocks;
  rocks.create_if_missing = options.create_if_missing && !options.read_only;
  rocks.paranoid_checks = true;
  rocks.keep_log_file_num = 4;
  rocks.max_open_files = -1;  // required by secondary instances; the catalog is small
  if (env != nullptr) rocks.env = env;
  return rocks;
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
  std::string pattern =
      (std::filesystem::temp_directory_path() / "moraine-secondary-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw IoError("cannot create a scratch directory for a read-only open");
  }
  return pattern;
}

void OpenSecondaryInto(RocksDbHandle* handle, const KvOptions& options, const std::string& path) {
  handle->secondary_dir = MakeSecondaryDir(handle->env.get());
  rocksdb::DB* db = nullptr;
  ThrowIfError(rocksdb::DB::OpenAsSecondary(BaseOptions(options, handle->env.get()), path,
                                            handle->secondary_dir, &db),
               "open " + options.location + " read-only");
  handle->db.reset(db);
}

bool StoreExists(rocksdb::Env* env, const std::string& path) {
  if (env != nullptr) return env->FileExists(path + "/CURRENT").ok();
  return std::filesystem::exists(std::filesystem::path(path) / "CURRENT");
}

}  // namespace

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

  if (!StoreExists(memory_env, path) && (options.read_only || !options.create_if_missing)) {
    throw NotFoundError("no moraine store at " + options.location);
  }
  if (memory_env == nullptr && !options.read_only) {
    std::error_code error;
    std::filesystem::create_directories(path, error);
    if (error) throw IoError("cannot create " + path + ": " + error.message());
  }

  if (options.read_only) {
    OpenSecondaryInto(handle.get(), options, path);
  } else {
    rocksdb::DB* db = nullptr;
    rocksdb::Status status = rocksdb::DB::Open(BaseOptions(options, memory_env), path, &db);
    if (status.IsIOError() && status.ToString().find("lock") != std::string::npos) {
      throw StoreLockedError("moraine store at " + options.location +
                             " is already open read-write (by this or another process); "
                             "close that handle or open this one read-only");
    }
    ThrowIfError(status, "open " + options.location);
    handle->db.reset(db);
  }
  return std::unique_ptr<RocksDbStore>(
      new RocksDbStore(options, std::move(path), std::move(handle)));
}

RocksDbStore::RocksDbStore(KvOptions options, std::string path,
                           std::shared_ptr<RocksDbHandle> handle)
    : options_(std::move(options)), path_(std::move(path)), handle_(std::move(handle)) {}

RocksDbStore::~RocksDbStore() = default;

std::unique_ptr<KvSnapshot> RocksDbStore::GetSnapshot() {
  if (!options_.read_only) return std::make_unique<RocksDbSnapshot>(handle_);
  // A secondary instance supports no RocksDB snapshots, so a read-only view is
  // an instance nobody moves: catch the current one up only while no snapshot
  // shares it; otherwise leave it frozen for its holders and open a fresh,
  // caught-up instance for this and later snapshots.
  std::lock_guard lock(mutex_);
  if (handle_.use_count() == 1) {
    ThrowIfError(handle_->db->TryCatchUpWithPrimary(), "catch up with the writer");
  } else {
    auto fresh = std::make_shared<RocksDbHandle>();
    fresh->env = handle_->env;
    OpenSecondaryInto(fresh.get(), options_, path_);
    handle_ = std::move(fresh);
  }
  return std::make_unique<RocksDbSnapshot>(handle_);
}

void RocksDbStore::ApplyLocked(const WriteBatch& batch) {
  rocksdb::WriteBatch rocks_batch;
  for (const WriteBatch::Op& op : batch.ops()) {
    rocksdb::Status status = op.type == WriteBatch::OpType::kPut
                                 ? rocks_batch.Put(ToSlice(op.key), ToSlice(op.value))
                                 : rocks_batch.Delete(ToSlice(op.key));
    ThrowIfError(status, "build write batch");
  }
  rocksdb::WriteOptions write_options;
  write_options.sync = options_.sync;
  ThrowIfError(handle_->db->Write(write_options, &rocks_batch), "write");
}

void RocksDbStore::Write(const WriteBatch& batch) {
  if (options_.read_only) throw ReadOnlyError("store at " + options_.location + " is read-only");
  std::lock_guard lock(mutex_);
  ApplyLocked(batch);
}

bool RocksDbStore::WriteIfHeadUnchanged(std::string_view head_key,
                                        const std::optional<std::string>& expected_head_value,
                                        const WriteBatch& batch) {
  if (options_.read_only) throw ReadOnlyError("store at " + options_.location + " is read-only");
  std::lock_guard lock(mutex_);
  std::string current;
  rocksdb::Status status = handle_->db->Get(rocksdb::ReadOptions(), ToSlice(head_key), &current);
  std::optional<std::string> head;
  if (!status.IsNotFound()) {
    ThrowIfError(status, "read head");
    head = std::move(current);
  }
  if (head != expected_head_value) return false;
  ApplyLocked(batch);
  return true;
}

void RocksDbStore::Flush() {
  if (options_.read_only) throw ReadOnlyError("store at " + options_.location + " is read-only");
  ThrowIfError(handle_->db->Flush(rocksdb::FlushOptions()), "flush");
}

}  // namespace moraine::store
