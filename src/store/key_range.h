#pragma once

// Scan bounds, derived from the key encoding rather than hand-assembled: the
// encoding of a shorter key path (subspace, kind, leading components) is a
// byte prefix of every key beneath it, so [prefix, successor(prefix)) is
// exactly that subtree.
//
// Thread-safety: KeyRange is a value type; the functions are functions of their
// arguments.

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "store/key_kind.h"

namespace moraine::store {

// Half-open byte range [begin, end). An empty `end` means unbounded above.
struct KeyRange {
  std::string begin;
  std::string end;

  bool Contains(std::string_view key) const;
  bool operator==(const KeyRange&) const = default;
};

// The smallest string greater than every string that starts with `prefix`, or
// "" (unbounded) if no such string exists (prefix empty or all 0xFF).
std::string PrefixSuccessor(std::string_view prefix);

// Every key in `subspace`.
KeyRange SubspaceRange(Subspace subspace);

// Every key of `kind` in `subspace` whose leading components equal `prefix`.
// Throws InvalidArgumentError if `kind` is not keyed in `subspace` or the
// prefix is longer than the key.
KeyRange PrefixRange(Subspace subspace, Kind kind, std::span<const uint64_t> prefix);
inline KeyRange PrefixRange(Subspace subspace, Kind kind,
                            std::initializer_list<uint64_t> prefix = {}) {
  return PrefixRange(subspace, kind, std::span<const uint64_t>(prefix.begin(), prefix.size()));
}

// Every key of a table-scoped `kind` belonging to `table_id` in `subspace`.
// Throws InvalidArgumentError for kinds whose first component is not a
// table id (schema, view, tag, ...), so a scope mistake cannot compile into a
// scan of unrelated ids.
KeyRange TableRange(Subspace subspace, Kind kind, uint64_t table_id);

}  // namespace moraine::store
