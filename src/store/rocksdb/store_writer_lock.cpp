#include "store/rocksdb/store_writer_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "store/error.h"

namespace moraine::store {
namespace {

std::mutex& RegistryMutex() {
  static std::mutex mutex;
  return mutex;
}
std::set<std::string>& HeldDirectories() {
  static std::set<std::string> held;
  return held;
}

// The same lock RocksDB's PosixFileSystem::LockFile takes: a write lock on
// the whole LOCK file, refused at once when held.
bool LockWholeFile(int fd) {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  return fcntl(fd, F_SETLK, &lock) == 0;
}

}  // namespace

std::string StoreWriterLock::HeldElsewhereMessage(const std::string& location) {
  return "moraine store at '" + location +
         "' is already open read-write (by this or another process); close that handle or open "
         "this one read-only";
}

StoreWriterLock::StoreWriterLock(const std::string& dir, const std::string& location) {
  std::error_code ignored;
  std::string key = std::filesystem::weakly_canonical(dir, ignored).string();
  if (key.empty()) key = dir;
  {
    std::lock_guard guard(RegistryMutex());
    if (!HeldDirectories().insert(key).second) {
      throw StoreLockedError(HeldElsewhereMessage(location));
    }
  }
  registered_ = key;
  const std::string file = dir + "/LOCK";
  fd_ = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);  // as RocksDB opens it
  const int open_error = errno;
  if (fd_ >= 0 && LockWholeFile(fd_)) return;
  const int lock_error = fd_ >= 0 ? errno : open_error;
  if (fd_ >= 0) close(fd_);
  {
    std::lock_guard guard(RegistryMutex());
    HeldDirectories().erase(registered_);
  }
  if (fd_ >= 0 && (lock_error == EACCES || lock_error == EAGAIN)) {
    throw StoreLockedError(HeldElsewhereMessage(location));
  }
  throw IoError("cannot lock moraine store at '" + location + "' (" + file +
                "): " + std::strerror(lock_error));
}

StoreWriterLock::~StoreWriterLock() {
  close(fd_);  // releases the record lock, unless RocksDB's close already did
  std::lock_guard guard(RegistryMutex());
  HeldDirectories().erase(registered_);
}

}  // namespace moraine::store
