#pragma once

// A file system that remembers what a power cut would take back, for the
// power-cut test tier (test_hooks.h, MORAINE_TEST_POWER_CUT). A SIGKILL keeps
// everything a process wrote to the page cache; a power cut, a kernel crash
// or a VM stop keeps only what was synced. This wrapper tracks, for the files
// it writes:
//   - file data: the bytes appended since the file's last Sync/Fsync
//     (RangeSync promises nothing about metadata and counts for nothing);
//   - directory entries: files created, and names a rename made or replaced,
//     since their directory's last Fsync;
//   - in-place writes of random-access files (the high-water file): the
//     content at the last sync.
// CutPower() takes all of that back on disk — truncates every file to its
// synced size, restores in-place files, removes entries made since their
// directory's sync and puts back what a rename replaced — and then kills the
// process, so that the next open sees what a power cut would have left.
//
// Not modelled: a deleted file coming back (RocksDB deletes only files it no
// longer needs), the store directory's own entry, and files written by
// anything but this file system (DuckDB's Parquet files).
//
// Thread-safety: every call is safe from any thread. One recursive lock
// orders each tracked operation against the cut, which keeps it for good:
// no write lands after the cut has begun, and a cut fired inside an
// operation (a file-operation cut point) proceeds on that thread.

#include <rocksdb/file_system.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace moraine::store {

class PowerCutFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  explicit PowerCutFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base);
  const char* Name() const override { return "MorainePowerCut"; }

  // Drops everything not yet durable, then SIGKILLs the process.
  [[noreturn]] void CutPower();

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* result,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* result,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewRandomRWFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSRandomRWFile>* result,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* result,
                                 rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus RenameFile(const std::string& source, const std::string& target,
                               const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus DeleteFile(const std::string& name, const rocksdb::IOOptions& options,
                               rocksdb::IODebugContext* dbg) override;

  // Called by the wrapped files and directories, with the lock held.
  void Appended(const std::string& path, uint64_t end);
  void Truncated(const std::string& path, uint64_t size);
  void DataSynced(const std::string& path);
  void BeforeInPlaceWrite(const std::string& path);
  void InPlaceSynced(const std::string& path);
  void DirectorySynced(const std::string& dir);
  std::recursive_mutex& mutex() { return mutex_; }

 private:
  struct WrittenFile {
    uint64_t size = 0;    // bytes written
    uint64_t synced = 0;  // of those, how many a sync made durable
  };
  // A directory entry made since the directory's last sync; `replaced` is
  // what the name held before (a rename over an existing file), if anything.
  struct NewEntry {
    std::optional<std::string> replaced;
  };

  void EntryMade(const std::string& path, std::optional<std::string> replaced);
  std::optional<std::string> ContentOf(const std::string& path);

  std::recursive_mutex mutex_;
  std::map<std::string, WrittenFile> written_;
  std::map<std::string, std::string> in_place_durable_;  // path -> content at last sync
  std::map<std::string, std::map<std::string, NewEntry>> new_entries_;  // dir -> name -> entry
};

}  // namespace moraine::store
