// Where a class's vtable sits in a loaded module's read-only relocated data,
// found by what two of its slots hold, for a vtable the module does not
// export (inlined_reader_hook.h).
//
// A vtable's slot holds its method's address at a fixed offset from the
// table's address point. Searching the module's words for one holding the
// first method, then checking that the word at the second method's offset
// from the same address point holds the second, finds every table that
// places both where the class places them. A derived class's table that
// overrides neither would match too, so a caller patches only a match that
// is the one place.
//
// Thread-safety: a function of the memory it reads, which must not change
// while it runs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace moraine::ducklake_adapter {

struct VtableSlotSearch {
  // The words [begin, end) searched (addresses; the range need not be
  // aligned: only its aligned words are read).
  uintptr_t begin = 0, end = 0;
  // The two slots, in bytes from the address point, and what each holds.
  size_t first_offset = 0;
  const void* first = nullptr;
  size_t second_offset = 0;
  const void* second = nullptr;

  struct Found {
    void** first_slot = nullptr;  // the first method's slot of the last match
    size_t places = 0;            // how many address points matched
  };
  Found Run() const;
};

}  // namespace moraine::ducklake_adapter
