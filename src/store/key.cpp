#include "store/key.h"

#include <algorithm>

#include "store/error.h"
#include "util/big_endian.h"

namespace moraine::store {

Key::Key(Subspace subspace, Kind kind, std::span<const uint64_t> components)
    : subspace_(subspace), kind_(kind) {
  std::optional<size_t> arity = KeyArity(subspace, kind);
  if (!arity) {
    throw InvalidArgumentError("kind 0x" + std::to_string(static_cast<int>(kind)) +
                               " is not keyed in subspace " + std::string(SubspaceName(subspace)));
  }
  if (components.size() != *arity) {
    throw InvalidArgumentError(std::string(GetKindInfo(kind).name) + " key in " +
                               std::string(SubspaceName(subspace)) + " takes " +
                               std::to_string(*arity) + " components, got " +
                               std::to_string(components.size()));
  }
  std::copy(components.begin(), components.end(), components_.begin());
  size_ = static_cast<uint8_t>(components.size());
}

Key Key::Current(Kind kind, std::initializer_list<uint64_t> components) {
  return Key(GetKindInfo(kind).home, kind, components);
}

Key Key::History(Kind kind, std::initializer_list<uint64_t> components, uint64_t end_snapshot) {
  std::array<uint64_t, kMaxKeyComponents> all{};
  if (components.size() >= kMaxKeyComponents) {
    throw InvalidArgumentError("too many components for a history key");
  }
  std::copy(components.begin(), components.end(), all.begin());
  all[components.size()] = end_snapshot;
  return Key(Subspace::kHistory, kind,
             std::span<const uint64_t>(all.data(), components.size() + 1));
}

Key Key::ToHistory(uint64_t end_snapshot) const {
  if (subspace_ != Subspace::kCurrent || size_ >= kMaxKeyComponents) {
    throw InvalidArgumentError("only current-subspace keys move to history: " + ToString());
  }
  std::array<uint64_t, kMaxKeyComponents> all = components_;
  all[size_] = end_snapshot;
  return Key(Subspace::kHistory, kind_, std::span<const uint64_t>(all.data(), size_ + 1u));
}

Key Key::Decode(std::string_view bytes) {
  if (bytes.size() < kKeyHeaderSize) {
    throw CorruptionError("key of " + std::to_string(bytes.size()) + " bytes is too short");
  }
  const auto subspace_byte = static_cast<uint8_t>(bytes[0]);
  const auto kind_byte = static_cast<uint8_t>(bytes[1]);
  if (!IsKnownSubspace(subspace_byte)) {
    throw CorruptionError("key has unknown subspace byte " + std::to_string(subspace_byte));
  }
  if (FindKindInfo(kind_byte) == nullptr) {
    throw CorruptionError("key has unknown kind byte " + std::to_string(kind_byte));
  }
  const auto subspace = static_cast<Subspace>(subspace_byte);
  const auto kind = static_cast<Kind>(kind_byte);
  std::optional<size_t> arity = KeyArity(subspace, kind);
  if (!arity) {
    throw CorruptionError("kind " + std::string(GetKindInfo(kind).name) +
                          " does not belong in subspace " + std::string(SubspaceName(subspace)));
  }
  const size_t expected = kKeyHeaderSize + *arity * kKeyComponentSize;
  if (bytes.size() != expected) {
    throw CorruptionError(std::string(GetKindInfo(kind).name) + " key in " +
                          std::string(SubspaceName(subspace)) + " must be " +
                          std::to_string(expected) + " bytes, got " + std::to_string(bytes.size()));
  }
  std::array<uint64_t, kMaxKeyComponents> components{};
  for (size_t i = 0; i < *arity; ++i) {
    components[i] = util::ReadBigEndian64(bytes.data() + kKeyHeaderSize + i * kKeyComponentSize);
  }
  return Key(subspace, kind, std::span<const uint64_t>(components.data(), *arity));
}

void Key::AppendEncoded(std::string* out) const {
  out->push_back(static_cast<char>(subspace_));
  out->push_back(static_cast<char>(kind_));
  for (size_t i = 0; i < size_; ++i) util::AppendBigEndian64(out, components_[i]);
}

std::string Key::Encode() const {
  std::string out;
  out.reserve(kKeyHeaderSize + size_ * kKeyComponentSize);
  AppendEncoded(&out);
  return out;
}

uint64_t Key::component(size_t index) const {
  if (index >= size_) {
    throw InvalidArgumentError("component " + std::to_string(index) + " of " + ToString());
  }
  return components_[index];
}

std::strong_ordering Key::operator<=>(const Key& other) const {
  if (auto c = subspace_ <=> other.subspace_; c != 0) return c;
  if (auto c = kind_ <=> other.kind_; c != 0) return c;
  auto mine = components();
  auto theirs = other.components();
  return std::lexicographical_compare_three_way(mine.begin(), mine.end(), theirs.begin(),
                                                theirs.end());
}

std::string Key::ToString() const {
  std::string out =
      std::string(SubspaceName(subspace_)) + "/" + std::string(GetKindInfo(kind_).name) + "(";
  for (size_t i = 0; i < size_; ++i) {
    if (i > 0) out += ",";
    out += std::to_string(components_[i]);
  }
  return out + ")";
}

}  // namespace moraine::store
