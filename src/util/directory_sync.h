// Making a directory's entries durable: after a file is created or renamed
// into a directory, the entry itself survives a power cut only once the
// directory is synced.
//
// Thread-safety: a pure function of the file system.
#pragma once

#include <string>

namespace moraine::util {

// fsync(2) of `directory`. Returns 0, or the errno of the open or the sync
// that failed.
int SyncDirectory(const std::string& directory);

}  // namespace moraine::util
