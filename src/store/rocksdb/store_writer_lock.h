#pragma once

// The right to write one store directory on disk, held for the life of the
// object: while it is held, no other process and no other handle of this
// process can open the store read-write. It lets a store open read-only and
// become a writer only at its first write (RocksDbStore), yet refuse a second
// writer at open, as RocksDB's own lock does.
//
// It is RocksDB's own lock: a POSIX record lock on the store's LOCK file, so
// it excludes every RocksDB writer of the directory (another moraine
// process, of any build; RocksDB's repair) and they exclude it. POSIX record
// locks belong to the process, so a RocksDB writer this process opens while
// the lock is held takes it again instead of being refused; and a second
// holder in this process would not be refused either, so a process-wide
// registry refuses it.
//
// POSIX drops a process's record locks on a file when the process closes any
// descriptor of it: RocksDB does, as its writer closes. The lock must
// therefore be taken before this process's RocksDB writer of the store opens,
// and is gone for other processes once that writer has closed; the registry
// still keeps this process's other handles out until the object is destroyed.
//
// Thread-safety: constructing and destroying locks of any stores from any
// threads is safe.

#include <string>

namespace moraine::store {

class StoreWriterLock {
 public:
  // Takes the lock of the store in directory `dir`. Throws StoreLockedError when another handle
  // of this process or another process holds it, IoError when the lock file
  // cannot be opened or locked. `location` names the store in errors.
  StoreWriterLock(const std::string& dir, const std::string& location);
  ~StoreWriterLock();
  StoreWriterLock(const StoreWriterLock&) = delete;
  StoreWriterLock& operator=(const StoreWriterLock&) = delete;

  // What a second writer of the store at `location` is told.
  static std::string HeldElsewhereMessage(const std::string& location);

 private:
  std::string registered_;  // the directory's key in the process-wide registry
  int fd_ = -1;
};

}  // namespace moraine::store
