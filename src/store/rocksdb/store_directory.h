#pragma once

// What a store location holds before RocksDB is let near it. A store is
// created only in an absent or empty directory, and a directory that holds
// RocksDB's files without the CURRENT file that names their manifest is a
// damaged store to refuse, never a place to create a new, empty one (RocksDB
// would then delete the old table files as obsolete).
//
// Pure inspection: nothing here creates, writes or removes anything.
//
// Thread-safety: plain data, and functions safe from any thread.

#include <filesystem>
#include <string>

namespace moraine::store {

enum class DirectoryState {
  kAbsent,          // nothing at the path: a store may be created
  kEmpty,           // an empty directory: a store may be created
  kStore,           // a RocksDB database (it has CURRENT)
  kMissingCurrent,  // RocksDB's files without CURRENT: a damaged store
  kForeign,         // a non-empty directory holding no store
  kNotADirectory,   // a file or something else that is not a directory
};

struct DirectoryInspection {
  DirectoryState state;
  // For kMissingCurrent and kForeign, one of the files found (for the error).
  std::string example_file;
};

// Classifies `path`. Throws IoError when the directory cannot be read.
DirectoryInspection InspectStoreDirectory(const std::filesystem::path& path);

// The user-facing explanation of why a location in `inspection`'s state
// cannot be opened as the store at `location`; empty for kStore, kAbsent and
// kEmpty.
std::string RefusalMessage(const DirectoryInspection& inspection, const std::string& location);

}  // namespace moraine::store
