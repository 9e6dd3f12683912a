#include "store/key_range.h"

#include "store/error.h"
#include "store/key.h"
#include "util/big_endian.h"

namespace moraine::store {

bool KeyRange::Contains(std::string_view key) const {
  return key >= std::string_view(begin) && (end.empty() || key < std::string_view(end));
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string out(prefix);
  while (!out.empty()) {
    auto last = static_cast<uint8_t>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();  // 0xFF cannot be incremented; carry into the byte before
  }
  return out;
}

KeyRange SubspaceRange(Subspace subspace) {
  std::string prefix(1, static_cast<char>(subspace));
  return {prefix, PrefixSuccessor(prefix)};
}

KeyRange PrefixRange(Subspace subspace, Kind kind, std::span<const uint64_t> prefix) {
  std::optional<size_t> arity = KeyArity(subspace, kind);
  if (!arity) {
    throw InvalidArgumentError("kind 0x" + std::to_string(static_cast<int>(kind)) +
                               " is not keyed in subspace " + std::string(SubspaceName(subspace)));
  }
  if (prefix.size() > *arity) {
    throw InvalidArgumentError(std::string(GetKindInfo(kind).name) + " prefix of " +
                               std::to_string(prefix.size()) + " components exceeds arity " +
                               std::to_string(*arity));
  }
  std::string begin;
  begin.push_back(static_cast<char>(subspace));
  begin.push_back(static_cast<char>(kind));
  for (uint64_t component : prefix) util::AppendBigEndian64(&begin, component);
  std::string end = PrefixSuccessor(begin);
  return {std::move(begin), std::move(end)};
}

KeyRange TableRange(Subspace subspace, Kind kind, uint64_t table_id) {
  const KindInfo* info = FindKindInfo(static_cast<uint8_t>(kind));
  if (info == nullptr || !info->table_scoped) {
    throw InvalidArgumentError("kind " + std::string(info ? info->name : "?") +
                               " is not keyed by table_id first; no table range exists");
  }
  const uint64_t prefix[] = {table_id};
  return PrefixRange(subspace, kind, prefix);
}

}  // namespace moraine::store
