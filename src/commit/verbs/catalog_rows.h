// Typed catalog records in and out of the ducklake_* rows of a RowTransaction,
// converted by the one row mapping (catalog/row_mapping.h). The verb path
// writes and reads the catalog only through this class, so the rows it
// produces are exactly the rows the staged-row path stores for DuckLake: no
// key or value of a catalog record is built anywhere else.
//
// A record passed in is a message of the kind the table maps onto (e.g. a
// catalog::ColumnRecord for ducklake_column); for the two tables merged in
// one snapshot record, a catalog::SnapshotRecord supplies either row.
//
// Thread-safety: none of its own; it uses the RowTransaction it is given,
// which the caller serializes (as every RowTransaction use).
#pragma once

#include <google/protobuf/message.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "catalog/row_mapping.h"
#include "commit/rows/row_transaction.h"

namespace moraine::commit {

class CatalogRows {
 public:
  explicit CatalogRows(RowTransaction& rows) : rows_(rows) {}

  // Inserts `record` as a new row of `table`.
  void Insert(std::string_view table, const google::protobuf::Message& record);

  // Declares the inlined data table of a schema change
  // (RowTransaction::CreateChangedInlinedTable).
  bool CreateChangedInlinedTable(
      const catalog::InlinedTableName& name, const std::vector<inlined::ShapeChange>& changes,
      const std::function<std::optional<std::vector<inlined::KeyedColumn>>()>& all_columns) {
    return rows_.CreateChangedInlinedTable(name, changes, all_columns);
  }

  // Inserts every entry of `container` (a table of entry rows, e.g.
  // ducklake_metadata from an OptionRecord) as a row of `table`.
  void InsertEntries(std::string_view table, const google::protobuf::Message& container);

  // Ends the live version of `table` whose key is `record`'s, as DuckLake's
  // `UPDATE ... SET end_snapshot = {SNAPSHOT_ID} WHERE end_snapshot IS NULL`
  // does. A version that began at `snapshot` itself was never visible at any
  // snapshot: it is deleted instead (DuckLake, too, never writes a version
  // its own transaction replaced). Throws store::NotFoundError if no such
  // live row exists.
  void End(std::string_view table, const google::protobuf::Message& record, int64_t snapshot);

  // Ends every live row of `table` whose first key column is `key`: the rows
  // of one table (or, for ducklake_tag, one object). Same rule as End.
  void EndAllWithKey(std::string_view table, int64_t key, int64_t snapshot);

  // Replaces the row of unversioned `table` whose key is `record`'s with
  // `record`, or inserts it when there is none (DuckLake's INSERT-or-UPDATE of
  // ducklake_table_stats).
  void Upsert(std::string_view table, const google::protobuf::Message& record);

  // Deletes the row of unversioned `table` whose key is `record`'s, if any.
  void Remove(std::string_view table, const google::protobuf::Message& record);

  // The record of the row of `table` whose key is `record`'s (the live one
  // for a versioned table), or nullptr.
  std::unique_ptr<google::protobuf::Message> Find(std::string_view table,
                                                  const google::protobuf::Message& record);

  // Visits the rows of `table` live at `snapshot` (nullopt: at head, where
  // live rows are those not ended), each as the table's record. Tables
  // without begin/end columns visit every row.
  void ForEachLive(std::string_view table, std::optional<int64_t> snapshot,
                   const std::function<void(const google::protobuf::Message&)>& visit);

  // Visits every row of entry-shaped `table` (e.g. ducklake_metadata) as its
  // container's own fields and its entry.
  void ForEachEntry(std::string_view table,
                    const std::function<void(const google::protobuf::Message& container,
                                             const google::protobuf::Message& entry)>& visit);

  // Visits every row of `table` (current and ended versions) as its record.
  void ForEach(std::string_view table,
               const std::function<void(const google::protobuf::Message&)>& visit);

 private:
  struct Match {
    RowHandle handle;
    Row row;
  };
  static const catalog::RowMapping& Mapping(std::string_view table);
  // The rows of `table` that equal `key_row` on the first `key_count` key
  // columns (and are live, for a versioned table when `live_only`).
  std::vector<Match> Matching(const catalog::RowMapping& mapping, const Row& key_row,
                              size_t key_count, bool live_only);
  void EndRow(const catalog::RowMapping& mapping, Match match, int64_t snapshot);

  RowTransaction& rows_;
};

}  // namespace moraine::commit
