#pragma once

// RocksDB's info log ("LOG" in the store directory) written so that a failing
// write can never take the store or the process down. RocksDB's own file
// logger goes through a WritableFileWriter, which in the Debian 12 build
// (assertions enabled) aborts the process on the write after a failed one:
// one ENOSPC during ATTACH killed the whole DuckDB session. This logger drops
// what it cannot write: the info log is a diagnostic, never part of the data.
//
// It keeps warnings and errors only, and creates the file at the first one:
// RocksDB writes several hundred lines of build and option dumps at every
// open, which cost every ATTACH about 0.8 ms of CPU (rotating and creating
// the file, formatting the lines) for lines nobody read.
//
// Thread-safety: every member may be called from any thread (RocksDB logs from
// its background threads); mutex_ guards the file and its size.

#include <rocksdb/env.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace moraine::store {

class RocksDbInfoLog final : public rocksdb::Logger {
 public:
  // A log into `<directory>/LOG`, created (the previous one kept as LOG.old)
  // at the first line worth keeping; if it cannot be, lines are dropped.
  static std::shared_ptr<rocksdb::Logger> Open(const std::string& directory);
  ~RocksDbInfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  // RocksDB's build and option dumps at open: dropped.
  void LogHeader(const char*, va_list) override {}
  size_t GetLogFileSize() const override;

 private:
  explicit RocksDbInfoLog(std::string directory)
      : rocksdb::Logger(rocksdb::InfoLogLevel::WARN_LEVEL), directory_(std::move(directory)) {}
  rocksdb::Status CloseImpl() override;

  // A long-lived writer logs statistics every few minutes; past this size
  // lines are dropped rather than filling the disk the catalog lives on.
  static constexpr size_t kMaxBytes = 16u << 20;

  mutable std::mutex mutex_;
  const std::string directory_;
  bool opened_ = false;        // whether the file was tried; guarded by mutex_
  std::FILE* file_ = nullptr;  // guarded by mutex_
  size_t bytes_ = 0;
};

}  // namespace moraine::store
