#include "store/rocksdb/power_cut_file_system.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "store/rocksdb/test_hooks.h"

namespace moraine::store {
namespace {

std::string DirectoryOf(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

std::string BaseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// What the cut-point names call a store file: "<kind>.<op>".
std::string KindOf(const std::string& path) {
  const std::string name = BaseName(path);
  if (name.ends_with(".log")) return "log";
  if (name.ends_with(".sst")) return std::string(BackgroundJobOfThisThread()) + ".sst";
  if (name.starts_with("MANIFEST")) return "manifest";
  if (name == "CURRENT") return "current";
  if (name.starts_with("MORAINE-HIGH-WATER")) return "mark";
  if (name.ends_with(".dbtmp")) return "tmp";
  return "other";
}

// The cut point of an operation on `path`, reached before it runs.
void ReachPoint(const std::string& path, const char* op) { CrashPoint(KindOf(path) + "." + op); }

// Writes `content` as the whole of `path`, or removes it (nullopt), below
// RocksDB: the cut's own writes, never tracked.
void PutBack(const std::string& path, const std::optional<std::string>& content) {
  if (!content) {
    ::unlink(path.c_str());
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content->data(), static_cast<std::streamsize>(content->size()));
}

// Runs `operation` under the file system's lock, once the cut point of `op`
// on `path` is passed.
template <class Operation>
rocksdb::IOStatus AtPoint(PowerCutFileSystem& fs, const std::string& path, const char* op,
                          Operation&& operation) {
  std::lock_guard lock(fs.mutex());
  ReachPoint(path, op);
  return operation();
}

class PowerCutWritableFile final : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  PowerCutWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file, PowerCutFileSystem& fs,
                       std::string path)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}

  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           rocksdb::IODebugContext* dbg) override {
    return Appending(options, dbg, [&] { return target()->Append(data, options, dbg); });
  }
  rocksdb::IOStatus Append(const rocksdb::Slice& data, const rocksdb::IOOptions& options,
                           const rocksdb::DataVerificationInfo& info,
                           rocksdb::IODebugContext* dbg) override {
    return Appending(options, dbg, [&] { return target()->Append(data, options, info, dbg); });
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     rocksdb::IODebugContext* dbg) override {
    return Appending(options, dbg,
                     [&] { return target()->PositionedAppend(data, offset, options, dbg); });
  }
  rocksdb::IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset,
                                     const rocksdb::IOOptions& options,
                                     const rocksdb::DataVerificationInfo& info,
                                     rocksdb::IODebugContext* dbg) override {
    return Appending(options, dbg,
                     [&] { return target()->PositionedAppend(data, offset, options, info, dbg); });
  }
  rocksdb::IOStatus Truncate(uint64_t size, const rocksdb::IOOptions& options,
                             rocksdb::IODebugContext* dbg) override {
    std::lock_guard lock(fs_.mutex());
    auto status = target()->Truncate(size, options, dbg);
    fs_.Truncated(path_, size);
    return status;
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Syncing([&] { return target()->Sync(options, dbg); });
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Syncing([&] { return target()->Fsync(options, dbg); });
  }
  // Not a sync: RocksDB's RangeSync is a hint to start write-back.
  rocksdb::IOStatus RangeSync(uint64_t offset, uint64_t nbytes, const rocksdb::IOOptions& options,
                              rocksdb::IODebugContext* dbg) override {
    std::lock_guard lock(fs_.mutex());
    return target()->RangeSync(offset, nbytes, options, dbg);
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    std::lock_guard lock(fs_.mutex());
    return target()->Close(options, dbg);
  }

 private:
  template <class Append>
  rocksdb::IOStatus Appending(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg,
                              Append&& append) {
    return AtPoint(fs_, path_, "append", [&] {
      auto status = append();
      fs_.Appended(path_, target()->GetFileSize(options, dbg));
      return status;
    });
  }
  template <class Sync>
  rocksdb::IOStatus Syncing(Sync&& sync) {
    return AtPoint(fs_, path_, "sync", [&] {
      auto status = sync();
      if (status.ok()) fs_.DataSynced(path_);
      return status;
    });
  }

  PowerCutFileSystem& fs_;
  const std::string path_;
};

class PowerCutRandomRWFile final : public rocksdb::FSRandomRWFileOwnerWrapper {
 public:
  PowerCutRandomRWFile(std::unique_ptr<rocksdb::FSRandomRWFile> file, PowerCutFileSystem& fs,
                       std::string path)
      : FSRandomRWFileOwnerWrapper(std::move(file)), fs_(fs), path_(std::move(path)) {}

  rocksdb::IOStatus Write(uint64_t offset, const rocksdb::Slice& data,
                          const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return AtPoint(fs_, path_, "write", [&] {
      fs_.BeforeInPlaceWrite(path_);
      return target()->Write(offset, data, options, dbg);
    });
  }
  rocksdb::IOStatus Sync(const rocksdb::IOOptions& options, rocksdb::IODebugContext* dbg) override {
    return Syncing([&] { return target()->Sync(options, dbg); });
  }
  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return Syncing([&] { return target()->Fsync(options, dbg); });
  }

 private:
  template <class Sync>
  rocksdb::IOStatus Syncing(Sync&& sync) {
    return AtPoint(fs_, path_, "sync", [&] {
      auto status = sync();
      if (status.ok()) fs_.InPlaceSynced(path_);
      return status;
    });
  }

  PowerCutFileSystem& fs_;
  const std::string path_;
};

class PowerCutDirectory final : public rocksdb::FSDirectory {
 public:
  PowerCutDirectory(std::unique_ptr<rocksdb::FSDirectory> directory, PowerCutFileSystem& fs,
                    std::string path)
      : directory_(std::move(directory)), fs_(fs), path_(std::move(path)) {}

  rocksdb::IOStatus Fsync(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    std::lock_guard lock(fs_.mutex());
    CrashPoint("dir.sync");
    auto status = directory_->Fsync(options, dbg);
    if (status.ok()) fs_.DirectorySynced(path_);
    return status;
  }
  rocksdb::IOStatus FsyncWithDirOptions(const rocksdb::IOOptions& options,
                                        rocksdb::IODebugContext* dbg,
                                        const rocksdb::DirFsyncOptions& dir_options) override {
    std::lock_guard lock(fs_.mutex());
    CrashPoint("dir.sync");
    auto status = directory_->FsyncWithDirOptions(options, dbg, dir_options);
    if (status.ok()) fs_.DirectorySynced(path_);
    return status;
  }
  rocksdb::IOStatus Close(const rocksdb::IOOptions& options,
                          rocksdb::IODebugContext* dbg) override {
    return directory_->Close(options, dbg);
  }
  size_t GetUniqueId(char* id, size_t max_size) const override {
    return directory_->GetUniqueId(id, max_size);
  }

 private:
  std::unique_ptr<rocksdb::FSDirectory> directory_;
  PowerCutFileSystem& fs_;
  const std::string path_;
};

}  // namespace

PowerCutFileSystem::PowerCutFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base)
    : FileSystemWrapper(base) {}

std::optional<std::string> PowerCutFileSystem::ContentOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void PowerCutFileSystem::EntryMade(const std::string& path, std::optional<std::string> replaced) {
  auto& entries = new_entries_[DirectoryOf(path)];
  // A name made twice since the sync still comes back to what it held first.
  entries.try_emplace(BaseName(path), NewEntry{std::move(replaced)});
}

rocksdb::IOStatus PowerCutFileSystem::NewWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  // O_TRUNC over an existing file: what it held is not durably gone either.
  std::optional<std::string> before = ContentOf(name);
  auto status = target()->NewWritableFile(name, options, result, dbg);
  if (!status.ok()) return status;
  if (before) {
    if (!written_.contains(name)) in_place_durable_.try_emplace(name, *before);
  } else {
    EntryMade(name, std::nullopt);
  }
  written_[name] = WrittenFile{};
  *result = std::make_unique<PowerCutWritableFile>(std::move(*result), *this, name);
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::ReopenWritableFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  const bool existed = std::filesystem::exists(name);
  auto status = target()->ReopenWritableFile(name, options, result, dbg);
  if (!status.ok()) return status;
  if (!written_.contains(name)) {
    // Written before this process, or not at all: durable as it stands.
    const uint64_t size = existed ? std::filesystem::file_size(name) : 0;
    written_[name] = WrittenFile{size, size};
    if (!existed) EntryMade(name, std::nullopt);
  }
  *result = std::make_unique<PowerCutWritableFile>(std::move(*result), *this, name);
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::ReuseWritableFile(
    const std::string& name, const std::string& old_name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSWritableFile>* result, rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  auto status = target()->ReuseWritableFile(name, old_name, options, result, dbg);
  if (!status.ok()) return status;
  written_.erase(old_name);
  EntryMade(name, std::nullopt);
  written_[name] = WrittenFile{};
  *result = std::make_unique<PowerCutWritableFile>(std::move(*result), *this, name);
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::NewRandomRWFile(
    const std::string& name, const rocksdb::FileOptions& options,
    std::unique_ptr<rocksdb::FSRandomRWFile>* result, rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  const bool existed = std::filesystem::exists(name);
  auto status = target()->NewRandomRWFile(name, options, result, dbg);
  if (!status.ok()) return status;
  if (!existed) EntryMade(name, std::nullopt);
  *result = std::make_unique<PowerCutRandomRWFile>(std::move(*result), *this, name);
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::NewDirectory(const std::string& name,
                                                   const rocksdb::IOOptions& options,
                                                   std::unique_ptr<rocksdb::FSDirectory>* result,
                                                   rocksdb::IODebugContext* dbg) {
  auto status = target()->NewDirectory(name, options, result, dbg);
  if (status.ok()) {
    // RocksDB may name a directory with a trailing slash; entries key on the
    // parent path of files, which has none.
    std::string path = name;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    *result = std::make_unique<PowerCutDirectory>(std::move(*result), *this, path);
  }
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::RenameFile(const std::string& source,
                                                 const std::string& target_name,
                                                 const rocksdb::IOOptions& options,
                                                 rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  ReachPoint(target_name, "rename");
  std::optional<std::string> replaced = ContentOf(target_name);
  if (replaced && written_.contains(target_name)) {
    // The replaced file's own unsynced bytes would not have survived either.
    replaced->resize(written_[target_name].synced);
  }
  auto status = target()->RenameFile(source, target_name, options, dbg);
  if (!status.ok()) return status;
  if (auto moved = written_.extract(source)) {
    written_.insert_or_assign(target_name, moved.mapped());
  } else {
    written_.erase(target_name);
  }
  new_entries_[DirectoryOf(source)].erase(BaseName(source));
  EntryMade(target_name, std::move(replaced));
  return status;
}

rocksdb::IOStatus PowerCutFileSystem::DeleteFile(const std::string& name,
                                                 const rocksdb::IOOptions& options,
                                                 rocksdb::IODebugContext* dbg) {
  std::lock_guard lock(mutex_);
  auto status = target()->DeleteFile(name, options, dbg);
  if (status.ok()) {
    written_.erase(name);
    in_place_durable_.erase(name);
    auto dir = new_entries_.find(DirectoryOf(name));
    if (dir != new_entries_.end()) dir->second.erase(BaseName(name));
  }
  return status;
}

void PowerCutFileSystem::Appended(const std::string& path, uint64_t end) {
  auto& file = written_[path];
  file.size = std::max(file.size, end);
}

void PowerCutFileSystem::Truncated(const std::string& path, uint64_t size) {
  auto& file = written_[path];
  file.size = size;
  file.synced = std::min(file.synced, size);
}

void PowerCutFileSystem::DataSynced(const std::string& path) {
  auto& file = written_[path];
  file.synced = file.size;
  in_place_durable_.erase(path);
}

void PowerCutFileSystem::BeforeInPlaceWrite(const std::string& path) {
  // The first write since the last sync: what the file holds now is durable.
  if (!in_place_durable_.contains(path)) {
    if (auto content = ContentOf(path)) in_place_durable_.emplace(path, std::move(*content));
  }
}

void PowerCutFileSystem::InPlaceSynced(const std::string& path) {
  in_place_durable_.erase(path);  // the file as it is now is what survives
}

void PowerCutFileSystem::DirectorySynced(const std::string& dir) { new_entries_.erase(dir); }

void PowerCutFileSystem::CutPower() {
  mutex_.lock();  // for good: nothing this process writes lands after the cut
  for (const auto& [path, file] : written_) {
    if (file.synced < file.size) (void)::truncate(path.c_str(), static_cast<off_t>(file.synced));
  }
  for (const auto& [path, content] : in_place_durable_) PutBack(path, content);
  for (const auto& [dir, entries] : new_entries_) {
    for (const auto& [name, entry] : entries) PutBack(dir + "/" + name, entry.replaced);
  }
  std::raise(SIGKILL);
  std::abort();  // not reached: SIGKILL cannot be caught
}

}  // namespace moraine::store
