#include "store/key_kind.h"

namespace moraine::store {

const KindInfo& GetKindInfo(Kind kind) {
  // Every enumerator has a row; the unit tests check the table is complete.
  return *FindKindInfo(static_cast<uint8_t>(kind));
}

// Subspace bytes are dense from 0x01; extend the bound when adding one.
bool IsKnownSubspace(uint8_t byte) { return byte >= 0x01 && byte <= 0x08; }

std::string_view SubspaceName(Subspace subspace) {
  switch (subspace) {
    case Subspace::kSystem:
      return "system";
    case Subspace::kSnapshot:
      return "snapshot";
    case Subspace::kCurrent:
      return "current";
    case Subspace::kHistory:
      return "history";
    case Subspace::kInlineData:
      return "inline";
    case Subspace::kIndex:
      return "index";
    case Subspace::kSchemaVersion:
      return "schema_version";
    case Subspace::kChangelog:
      return "changelog";
  }
  return "unknown";
}

std::optional<size_t> KeyArity(Subspace subspace, Kind kind) {
  const KindInfo* info = FindKindInfo(static_cast<uint8_t>(kind));
  if (info == nullptr) return std::nullopt;
  if (subspace == info->home) return info->arity;
  if (subspace == Subspace::kHistory && info->versioned) return info->arity + 1u;
  return std::nullopt;
}

}  // namespace moraine::store
