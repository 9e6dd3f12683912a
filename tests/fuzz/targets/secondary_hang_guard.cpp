#include "secondary_hang_guard.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace moraine::fuzz {
namespace {

// RocksDB's log format (db/log_format.h): 32 KiB blocks of records, each
// behind checksum (4) · length (2, little-endian) · type (1).
constexpr size_t kBlockSize = 32768;
constexpr size_t kHeaderSize = 7;
constexpr uint8_t kRecyclableFullType = 5;
constexpr uint8_t kRecyclableLastType = 8;

bool HasRecyclableHeader(const std::string& log) {
  for (size_t block = 0; block < log.size(); block += kBlockSize) {
    const size_t end = std::min(log.size(), block + kBlockSize);
    for (size_t at = block; at + kHeaderSize <= end;) {
      const auto type = static_cast<uint8_t>(log[at + 6]);
      if (type >= kRecyclableFullType && type <= kRecyclableLastType) return true;
      const size_t length =
          static_cast<uint8_t>(log[at + 4]) | (size_t{static_cast<uint8_t>(log[at + 5])} << 8);
      at += kHeaderSize + length;
    }
  }
  return false;
}

}  // namespace

bool MayHangSecondaryOpen(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string log{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (HasRecyclableHeader(log)) return true;
  }
  return false;
}

}  // namespace moraine::fuzz
