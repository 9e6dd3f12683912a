// Fixed-width big-endian integers in byte strings: the encoding that makes
// keys compare as byte strings in numeric order, and value frames portable.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace moraine::util {

void AppendBigEndian32(std::string* out, uint32_t value);
void AppendBigEndian64(std::string* out, uint64_t value);
// Reads 4 (8) bytes at `bytes`, which the caller has checked are there.
uint32_t ReadBigEndian32(const char* bytes);
uint64_t ReadBigEndian64(const char* bytes);

}  // namespace moraine::util
