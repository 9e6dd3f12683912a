#include "ducklake_adapter/last_committed_snapshot_read.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>

namespace moraine::ducklake_adapter {
namespace {

constexpr int kRax = 0;

std::string Hex(size_t value) {
  char digits[2 * sizeof(value)];
  const auto end = std::to_chars(std::begin(digits), std::end(digits), value, 16).ptr;
  return "0x" + std::string(digits, end);
}

// `op reg, disp(base)` with a 64-bit operand: REX.W, the opcode, a ModRM with
// a displacement (mod 01 or 10), no index register (a SIB byte only where the
// base needs one: rsp and r12).
struct RegisterAndMemory {
  int reg = 0;
  int base = 0;
  int64_t displacement = 0;
  size_t length = 0;
};

std::optional<RegisterAndMemory> Decode(std::span<const unsigned char> code, size_t at,
                                        unsigned char opcode) {
  if (at + 4 > code.size()) return std::nullopt;
  const unsigned char rex = code[at];
  if ((rex & 0xf8) != 0x48 || (rex & 0x02) != 0) return std::nullopt;  // W set, no REX.X
  if (code[at + 1] != opcode) return std::nullopt;
  const unsigned char modrm = code[at + 2];
  const int mod = modrm >> 6;
  if (mod != 1 && mod != 2) return std::nullopt;
  RegisterAndMemory decoded;
  decoded.reg = ((rex >> 2) & 1) << 3 | ((modrm >> 3) & 7);
  decoded.base = (rex & 1) << 3 | (modrm & 7);
  size_t next = at + 3;
  if ((modrm & 7) == 4) {  // a SIB byte: base only, no index
    if (code[next] != 0x24) return std::nullopt;
    ++next;
  }
  if (mod == 1) {
    if (next + 1 > code.size()) return std::nullopt;
    decoded.displacement = static_cast<int8_t>(code[next]);
    next += 1;
  } else {
    if (next + 4 > code.size()) return std::nullopt;
    int32_t displacement = 0;
    std::memcpy(&displacement, &code[next], sizeof(displacement));
    decoded.displacement = displacement;
    next += 4;
  }
  decoded.length = next - at;
  return decoded;
}

bool At(const RegisterAndMemory& operand, int base, size_t offset) {
  return operand.base == base && operand.displacement == static_cast<int64_t>(offset);
}

// `cmp $-1, reg` (REX.W 83 /7 ib) at `at`.
bool ComparesWithMinusOne(std::span<const unsigned char> code, size_t at, int reg) {
  return at + 4 <= code.size() && code[at] == (0x48 | (reg >> 3)) && code[at + 1] == 0x83 &&
         code[at + 2] == (0xf8 | (reg & 7)) && code[at + 3] == 0xff;
}

constexpr unsigned char kMov = 0x8b;
constexpr unsigned char kLea = 0x8d;

}  // namespace

std::string CheckLastCommittedSnapshotRead(std::span<const unsigned char> bind,
                                           const LastCommittedSnapshotPlace& place) {
  const std::string bind_name = "DuckLakeLastCommittedSnapshotBind";
  bool read_catalog = false;
  bool locked = false;
  for (size_t at = 0; at < bind.size(); ++at) {
    const auto catalog = Decode(bind, at, kMov);
    if (!catalog || !At(*catalog, kRax, place.transaction_catalog)) continue;
    read_catalog = true;
    const int base = catalog->reg;
    for (size_t lock_at = at + catalog->length; lock_at < bind.size(); ++lock_at) {
      const auto lock = Decode(bind, lock_at, kLea);
      if (!lock || !At(*lock, base, place.commit_lock)) continue;
      locked = true;
      for (size_t read_at = lock_at + lock->length; read_at < bind.size(); ++read_at) {
        const auto read = Decode(bind, read_at, kMov);
        if (read && At(*read, base, place.last_committed) &&
            ComparesWithMinusOne(bind, read_at + read->length, read->reg)) {
          return "";
        }
      }
    }
  }
  if (!read_catalog) {
    return bind_name + " does not read the catalog at " + Hex(place.transaction_catalog) +
           " of the transaction";
  }
  if (!locked) return bind_name + " does not lock the catalog at " + Hex(place.commit_lock);
  return bind_name + " does not read an optional_idx at " + Hex(place.last_committed) +
         " of the catalog under its lock";
}

std::vector<const unsigned char*> RdxLeaTargets(std::span<const unsigned char> code) {
  std::vector<const unsigned char*> targets;
  // lea disp32(%rip),%rdx: 48 8d 15, the displacement counted from the end of
  // the seven-byte instruction.
  for (size_t at = 0; at + 7 <= code.size(); ++at) {
    if (code[at] != 0x48 || code[at + 1] != kLea || code[at + 2] != 0x15) continue;
    int32_t displacement = 0;
    std::memcpy(&displacement, &code[at + 3], sizeof(displacement));
    targets.push_back(code.data() + at + 7 + displacement);
  }
  return targets;
}

}  // namespace moraine::ducklake_adapter
