#pragma once

// A look at the record headers of RocksDB's write-ahead log files before
// RocksDB reads them. RocksDB 7.8 treats a record of a "recyclable" type
// (5-8, written only when log files are recycled, which moraine never does)
// as left over from an older log: the read-write open stops replaying there
// and silently drops every later commit, and a read-only (secondary) open
// spins forever. Found by the store-open fuzz target. A single flipped bit in
// a type byte is enough, and a checksum never gets the chance to object.
//
// Pure reading: nothing is changed.
//
// Thread-safety: not safe beside a writer appending to the same files; called
// before the store is opened.

#include <optional>
#include <string>

namespace moraine::store {

// The first log record in `directory`'s *.log files whose type this store
// never writes, described for an error message; nullopt when there is none.
std::optional<std::string> FindForeignLogRecord(const std::string& directory);

}  // namespace moraine::store
