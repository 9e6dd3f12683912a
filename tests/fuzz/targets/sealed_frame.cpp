#include "sealed_frame.h"

#include <zlib.h>

#include "store/value_frame.h"
#include "util/big_endian.h"

namespace moraine::fuzz {

std::string SealFrame(uint8_t version, uint8_t kind, std::string_view payload) {
  const Bytef header[2] = {version, kind};
  uLong crc = crc32(crc32(0L, Z_NULL, 0), header, sizeof(header));
  // Fuzz inputs are far below 4 GiB, the most one crc32 call takes.
  crc =
      crc32(crc, reinterpret_cast<const Bytef*>(payload.data()), static_cast<uInt>(payload.size()));
  std::string out(store::kValueMagic);
  out.push_back(static_cast<char>(version));
  out.push_back(static_cast<char>(kind));
  util::AppendBigEndian32(&out, static_cast<uint32_t>(crc));
  out.append(payload);
  return out;
}

}  // namespace moraine::fuzz
