// `moraine verify`: an fsck of a moraine store. It reads the whole keyspace at
// one consistent snapshot and checks every invariant of the design (DESIGN.md
// "Load-bearing invariants"):
//   - every key decodes and every value unframes as its kind (frame, kind,
//     checksum, payload);
//   - the current/history split: a current version has no end_snapshot, a
//     history key's end snapshot is its record's, begin < end, and the key's
//     components are the record's own identity;
//   - no identity is live twice (versions never overlap) and an ended
//     identity never comes back at a snapshot the store holds (ids, and field
//     ids within a table, are never reused);
//   - snapshots: the head record names the newest snapshot and it exists,
//     nothing begins or ends beyond the head, every dead identity
//     (a schema, table, view, macro or file) that ended is visible at some
//     snapshot the store holds, as DuckLake's expiry leaves it, and counters
//     and schema_version never go backwards. Snapshot ids need not be dense:
//     expiry deletes snapshots, even between others, without a trace;
//   - names: at the head no two live schemas, tables/views of a schema or
//     sibling columns share a name;
//   - references: tables/views/macros name a schema, columns/files/partitions
//     a table, nested fields a parent, delete files a data file, each live at
//     every snapshot the store holds where the reference is;
//   - the persisted next ids are above every id used (next_catalog_id,
//     next_file_id, a table's next_column_id);
//   - inlined tables are registered (shape <-> ducklake_inlined_data_tables),
//     inlined rows belong to a created table;
//   - the store format and catalog version records are present and agree;
//   - protected tags: each unended tag protects a snapshot the store holds,
//     and holds a name no other unended tag holds.
// Read-only; the caller passes a snapshot of a store opened read-only.
//
// Thread-safety: plain data; VerifyStore reads only `snapshot` (whose reads may
// run concurrently) and calls `progress` on the calling thread, so any thread
// may call it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

struct Violation {
  std::string check;    // which invariant, e.g. "value", "history-end", "field-id-reused"
  std::string key;      // the key it was found at, as Key::ToString() (hex when undecodable)
  std::string message;  // what is wrong
};

struct VerifyReport {
  std::vector<Violation> violations;
  uint64_t keys_scanned = 0;
  bool clean() const { return violations.empty(); }
};

// Called from the scan every so often with the keys read so far and the
// subspace byte of the key being read (for a progress display).
using VerifyProgress = std::function<void(uint64_t keys_scanned, uint8_t subspace)>;

// Checks every invariant over `snapshot`. Never throws for a damaged store:
// damage is a violation.
VerifyReport VerifyStore(const store::KvSnapshot& snapshot, const VerifyProgress& progress = {});

// (invariant, key, problem) rows: one per violation.
ToolTable ViolationTable(const VerifyReport& report);

}  // namespace moraine::tools
