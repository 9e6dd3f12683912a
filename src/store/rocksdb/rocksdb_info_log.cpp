#include "store/rocksdb/rocksdb_info_log.h"

#include <sys/time.h>

#include <cstdarg>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace moraine::store {

std::shared_ptr<rocksdb::Logger> RocksDbInfoLog::Open(const std::string& directory) {
  return std::shared_ptr<rocksdb::Logger>(new RocksDbInfoLog(directory));
}

RocksDbInfoLog::~RocksDbInfoLog() {
  if (!closed_) CloseImpl();
}

rocksdb::Status RocksDbInfoLog::CloseImpl() {
  std::lock_guard lock(mutex_);
  if (file_ != nullptr) std::fclose(file_);  // a failed close loses log lines only
  file_ = nullptr;
  return rocksdb::Status::OK();
}

void RocksDbInfoLog::Logv(const char* format, va_list ap) {
  char line[4096];
  timeval now{};
  gettimeofday(&now, nullptr);
  tm local{};
  localtime_r(&now.tv_sec, &local);
  int prefix = static_cast<int>(strftime(line, sizeof(line), "%Y/%m/%d-%H:%M:%S", &local));
  prefix += std::snprintf(line + prefix, sizeof(line) - static_cast<size_t>(prefix), ".%06ld ",
                          static_cast<long>(now.tv_usec));
  va_list copy;
  va_copy(copy, ap);
  int body =
      std::vsnprintf(line + prefix, sizeof(line) - static_cast<size_t>(prefix) - 1, format, copy);
  va_end(copy);
  if (body < 0) return;
  size_t length = std::min(sizeof(line) - 2, static_cast<size_t>(prefix + body));
  if (line[length - 1] != '\n') line[length++] = '\n';

  std::lock_guard lock(mutex_);
  if (!opened_) {
    opened_ = true;
    const std::filesystem::path log = std::filesystem::path(directory_) / "LOG";
    std::error_code ignored;
    std::filesystem::rename(log, std::filesystem::path(directory_) / "LOG.old", ignored);
    file_ = std::fopen(log.c_str(), "we");
  }
  if (file_ == nullptr || bytes_ + length > kMaxBytes) return;
  // Errors (ENOSPC, EIO) are deliberately ignored: see the header.
  bytes_ += std::fwrite(line, 1, length, file_);
  std::fflush(file_);
}

size_t RocksDbInfoLog::GetLogFileSize() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace moraine::store
