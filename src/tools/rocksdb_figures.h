// RocksDB's own account of a store's size: its properties (estimated keys,
// live data, table files, memtables) read through a private secondary
// instance, so a live writer is undisturbed. For `moraine inspect`.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace moraine::tools {

// (property, value) pairs: RocksDB's size properties, then the bytes of the
// store directory's files by role (table files, write-ahead logs, manifest).
// Empty for an in-memory location. Throws store::IoError when RocksDB cannot
// open the directory.
std::vector<std::pair<std::string, std::string>> RocksDbFigures(const std::string& path);

}  // namespace moraine::tools
