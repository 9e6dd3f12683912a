#pragma once

// RocksDB's info log ("LOG" in the store directory) written so that a failing
// write can never take the store or the process down. RocksDB's own file
// logger goes through a WritableFileWriter, which in the Debian 12 build
// (assertions enabled) aborts the process on the write after a failed one:
// one ENOSPC during ATTACH killed the whole DuckDB session. This logger drops
// what it cannot write: the info log is a diagnostic, never part of the data.
//
// Thread-safe: RocksDB logs from its background threads.

#include <rocksdb/env.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace moraine::store {

class RocksDbInfoLog final : public rocksdb::Logger {
 public:
  // Opens `<directory>/LOG`, keeping the previous one as LOG.old. Returns null
  // when the file cannot be opened (RocksDB then logs nothing).
  static std::shared_ptr<rocksdb::Logger> Open(const std::string& directory);
  ~RocksDbInfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  size_t GetLogFileSize() const override;

 private:
  explicit RocksDbInfoLog(std::FILE* file) : file_(file) {}
  rocksdb::Status CloseImpl() override;

  // A long-lived writer logs statistics every few minutes; past this size
  // lines are dropped rather than filling the disk the catalog lives on.
  static constexpr size_t kMaxBytes = 16u << 20;

  mutable std::mutex mutex_;
  std::FILE* file_;
  size_t bytes_ = 0;
};

}  // namespace moraine::store
