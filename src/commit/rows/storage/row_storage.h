// How the rows of one DuckLake table are laid onto the store's records. A
// RowTransaction picks the storage of a table by the table's RowShape
// (catalog/row_mapping.h) or, for the per-table inlined families, by name;
// each storage then reads and writes through the transaction's
// StagedRecords. The five storages:
//   RecordStorage        one record per row (kRecord)
//   SnapshotRowStorage   the ducklake_snapshot half of a merged snapshot record
//   ChangesRowStorage    the ducklake_snapshot_changes half of that record
//   EntryStorage         entries of a container record per key (kEntry)
//   InlinedRowStorage    rows of an inlined data or delete table
// A storage holds no rows.
//
// Thread-safety: not thread-safe; a storage belongs to one RowTransaction and
// is used as it is, one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "catalog/row.h"
#include "commit/rows/row_transaction.h"
#include "store/error.h"

namespace moraine::commit {

// A row a scan handed out, by its RowHandle: where it is stored and what it
// held when last seen, so an update or delete can find it again.
struct RowTarget {
  std::string table;
  std::string key;  // the key of the record holding the row
  Row row;
  uint64_t ordinal = 0;  // the row's write ordinal, kept by an update
  bool removed = false;
};

// Receives each row a scan finds: the key of its record (possibly empty when
// the request asks for no handles), the row and its write ordinal (0 when the
// table keeps none).
using ScannedRowSink = std::function<void(std::string_view key, Row row, uint64_t ordinal)>;

class RowStorage {
 public:
  virtual ~RowStorage() = default;

  // Visits the table's rows `request` allows, in the order
  // RowTransaction::Scan promises. The caller has flushed open containers.
  virtual void Scan(const ScanRequest& request, const ScannedRowSink& sink) = 0;
  // Throws store::ConstraintError for a duplicate identity (a
  // store::ConflictError for a second ducklake_snapshot row of one id: two
  // writers took the same next id, a race DuckLake retries).
  virtual void Insert(const Row& row) = 0;
  // Replaces the row `target` names with `row` and sets target.key to where
  // it now lives (the caller sets target.row).
  virtual void Update(RowTarget& target, const Row& row) = 0;
  virtual void Remove(const RowTarget& target) = 0;
};

inline store::ConstraintError DuplicateRow(std::string_view table) {
  return store::ConstraintError("duplicate row identity in " + std::string(table));
}

inline store::NotFoundError RowGone(const RowTarget& target) {
  return store::NotFoundError("the row of " + target.table + " is gone");
}

}  // namespace moraine::commit
