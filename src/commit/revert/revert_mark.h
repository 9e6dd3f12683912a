// The mark a revert leaves (moraine_rollback, moraine_undrop): moraine's own
// record in the system subspace (sys/revert_mark/<snapshot_id>), never a
// DuckLake row, saying which snapshot a revert committed and which file ids it
// gave to the files it brought back.
//
// DuckLake never uses an id again once its versions end; a revert does, on
// purpose: what it brings back keeps its schema, table, view, macro and field
// ids, so that names, lineage and time travel see one object. The store
// verifier accepts such a comeback only at a marked snapshot. Files are the
// exception: DuckLake's expiry deletes a file's rows by id, so a file brought
// back gets a new id for the same path, and the mark links the two ids. The
// row transaction reads those links so that the expiry of the old row never
// schedules for deletion a path a newer row still reads.
//
// Thread-safety: value types and pure functions of their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/key_range.h"

namespace moraine::commit::revert {

struct RevivedFile {
  int64_t old_file_id = 0;
  int64_t new_file_id = 0;
  int64_t table_id = 0;
  bool delete_file = false;  // a delete file's ids; else a data file's
  bool operator==(const RevivedFile&) const = default;
};

struct RevertMark {
  int64_t snapshot_id = 0;          // the snapshot the revert committed
  int64_t as_of_snapshot = 0;       // the snapshot whose catalog it brought back
  std::optional<int64_t> table_id;  // an undrop: only this table's rows
  std::vector<RevivedFile> revived_files;
  bool operator==(const RevertMark&) const = default;
};

// The encoded key of the mark of `snapshot_id`, and the range of every mark.
std::string RevertMarkKey(int64_t snapshot_id);
store::KeyRange RevertMarkRange();

// A framed record of `mark`, and the mark a framed record holds. Decode
// throws store::CorruptionError for a value that is no revert mark.
std::string EncodeRevertMark(const RevertMark& mark);
RevertMark DecodeRevertMark(std::string_view value);

}  // namespace moraine::commit::revert
