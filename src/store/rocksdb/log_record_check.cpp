#include "store/rocksdb/log_record_check.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace moraine::store {
namespace {

// RocksDB's log format (db/log_format.h): 32 KiB blocks of records, each with
// a 7-byte header (checksum, 2-byte little-endian length, type); a block's
// last bytes, too few for a header, are padding.
constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 7;
constexpr uint8_t kZeroType = 0;            // preallocated, never written
constexpr uint8_t kLastWrittenType = 4;     // full, first, middle, last
constexpr uint8_t kSetCompressionType = 9;  // written when WAL compression is on

std::optional<std::string> FindInLog(const std::filesystem::path& log) {
  std::ifstream in(log, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  size_t at = 0;
  while (at + kHeaderSize <= bytes.size()) {
    const size_t left_in_block = kBlockSize - at % kBlockSize;
    if (left_in_block < kHeaderSize) {
      at += left_in_block;
      continue;
    }
    const auto type = static_cast<uint8_t>(bytes[at + 6]);
    const size_t length = static_cast<uint8_t>(bytes[at + 4]) |
                          (static_cast<size_t>(static_cast<uint8_t>(bytes[at + 5])) << 8);
    if (type == kZeroType && length == 0) return std::nullopt;  // the end: preallocated zeros
    if (type > kLastWrittenType && type != kSetCompressionType) {
      return "write-ahead log " + log.filename().string() + " has a record of type " +
             std::to_string(type) + " at offset " + std::to_string(at) +
             ", a type this store never writes";
    }
    at += kHeaderSize + length;
  }
  return std::nullopt;  // an incomplete last record is the torn tail RocksDB tolerates
}

}  // namespace

std::optional<std::string> FindForeignLogRecord(const std::string& directory) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().extension() != ".log") continue;
    if (auto found = FindInLog(entry.path())) return found;
  }
  return std::nullopt;
}

}  // namespace moraine::store
