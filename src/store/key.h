#pragma once

// A typed catalog key and its order-preserving byte encoding (RFC 0002).
//
//   bytes = subspace byte · kind byte · N × u64 big-endian
//
// Fixed-width big-endian components make byte order equal numeric order, and
// make every shorter key path a byte prefix of all keys beneath it, which is
// what key_range.h builds scan bounds from. History keys are the current key's
// components followed by the version's end_snapshot.
//
// Thread-safety: a value type: concurrent const reads are safe; a write needs
// the instance to itself.

#include <array>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "store/key_kind.h"

namespace moraine::store {

inline constexpr size_t kKeyHeaderSize = 2;  // subspace byte + kind byte
inline constexpr size_t kKeyComponentSize = sizeof(uint64_t);

class Key {
 public:
  // Throws InvalidArgumentError unless `kind` is keyed in `subspace` with
  // exactly components.size() components.
  Key(Subspace subspace, Kind kind, std::span<const uint64_t> components);
  Key(Subspace subspace, Kind kind, std::initializer_list<uint64_t> components)
      : Key(subspace, kind, std::span<const uint64_t>(components.begin(), components.size())) {}

  // The key of a live record, in its kind's home subspace.
  static Key Current(Kind kind, std::initializer_list<uint64_t> components);
  // The key of an ended version of a versioned kind.
  static Key History(Kind kind, std::initializer_list<uint64_t> components, uint64_t end_snapshot);

  // Parses bytes produced by Encode(). Throws CorruptionError on anything
  // else: unknown subspace or kind, a kind outside its subspace, wrong length.
  static Key Decode(std::string_view bytes);

  std::string Encode() const;
  void AppendEncoded(std::string* out) const;

  // This current-subspace key moved to history with `end_snapshot` appended.
  // Throws InvalidArgumentError for a key that has no history form.
  Key ToHistory(uint64_t end_snapshot) const;

  Subspace subspace() const { return subspace_; }
  Kind kind() const { return kind_; }
  std::span<const uint64_t> components() const { return {components_.data(), size_}; }
  uint64_t component(size_t index) const;

  // Tuple order (subspace, kind, components...): the order the bytes sort in.
  std::strong_ordering operator<=>(const Key& other) const;
  bool operator==(const Key& other) const { return (*this <=> other) == 0; }

  std::string ToString() const;  // for messages and tools, e.g. "current/column(7,3)"

 private:
  Subspace subspace_;
  Kind kind_;
  uint8_t size_ = 0;
  std::array<uint64_t, kMaxKeyComponents> components_{};
};

}  // namespace moraine::store
