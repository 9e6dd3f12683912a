#include "util/big_endian.h"

namespace moraine::util {
namespace {

template <class T>
void Append(std::string* out, T value) {
  for (int shift = 8 * (static_cast<int>(sizeof(T)) - 1); shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((value >> shift) & 0xFF));
  }
}

template <class T>
T Read(const char* bytes) {
  T value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value = (value << 8) | static_cast<uint8_t>(bytes[i]);
  return value;
}

}  // namespace

void AppendBigEndian32(std::string* out, uint32_t value) { Append(out, value); }
void AppendBigEndian64(std::string* out, uint64_t value) { Append(out, value); }
uint32_t ReadBigEndian32(const char* bytes) { return Read<uint32_t>(bytes); }
uint64_t ReadBigEndian64(const char* bytes) { return Read<uint64_t>(bytes); }

}  // namespace moraine::util
