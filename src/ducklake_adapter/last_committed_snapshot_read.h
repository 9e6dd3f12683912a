// Where DuckLake keeps the id of the newest snapshot committed through a
// catalog (DuckLakeCatalog::last_committed_snapshot, behind the catalog's
// commit_lock), confirmed from the machine code that reads it, since no
// exported symbol names the field.
//
// The code is DuckLakeLastCommittedSnapshotBind, the bind of
// ducklake_last_committed_snapshot(); it is static, and its address is only
// in the exported constructor of the table function, as a
// `lea disp32(%rip),%rdx`. The bind, in every build read so far (DuckLake
// d8a1881e from DuckDB's registry, 5ef9e03d built here; their registers and
// instruction order differ), does, in this order:
//   mov 0x40(%rax),%B        after DuckLakeTransaction::Get: its catalog
//   lea 0x388(%B),%L         the catalog's commit_lock, then locked
//   mov 0x3b0(%B),%V         last_committed_snapshot
//   cmp $-1,%V               optional_idx's invalid value
// with one base register B for all three. The check reads only those
// instruction forms and compares their displacements with the declared
// offsets: a build that moved any field, or reads it another way, is
// refused, never guessed at.
//
// Thread-safety: free functions over bytes, no state.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace moraine::ducklake_adapter {

struct LastCommittedSnapshotPlace {
  size_t transaction_catalog = 0;  // the DuckLakeCatalog & in DuckLakeTransaction
  size_t commit_lock = 0;          // DuckLakeCatalog::commit_lock
  size_t last_committed = 0;       // DuckLakeCatalog::last_committed_snapshot
};

// Whether `bind` (the bind's code from its first byte; a window that may run
// past its end) reads `place` in the order above. Returns "" when it does,
// otherwise which read it lacks.
std::string CheckLastCommittedSnapshotRead(std::span<const unsigned char> bind,
                                           const LastCommittedSnapshotPlace& place);

// The targets of every `lea disp32(%rip),%rdx` in `code` (counted from where
// `code` lies): the candidates for the bind in the constructor's code.
std::vector<const unsigned char*> RdxLeaTargets(std::span<const unsigned char> code);

}  // namespace moraine::ducklake_adapter
