// Where each row of DuckLake's catalog tables (28 at catalog version 1.0, 29
// at 1.1) lives in the store, and how it converts to and from that place's
// record.
//
// Record fields carry the DuckLake column names (store/records.proto), so one
// reflective conversion serves every table; what differs per table is only
// its kind, the columns that form its key and its shape:
//   - a record per row (most tables); versioned ones live in `current` while
//     end_snapshot is NULL and in `history`, keyed with it, once it is set;
//   - an entry of a container record per parent, for rows identified by a
//     string (tags, column and view-column tags, options) and for column
//     stats (one container per data file or table, so that a commit writes a
//     number of keys independent of the table's width). Column stats entries
//     are kept in order of an entry key column (column_id), so a scan returns
//     them in the order a record per row would, and one is found by search;
//   - one of the two rows merged in a snapshot record (ducklake_snapshot and
//     ducklake_snapshot_changes).
//
// Thread-safety: a RowMapping is immutable after construction (every member but
// the constructor is const), so the mappings RowMappings returns, built once on
// first use, may be used from any thread.
#pragma once

#include <google/protobuf/message.h>

#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/ducklake_tables.h"
#include "catalog/row.h"
#include "store/key.h"
#include "store/payload_fields.h"

namespace moraine::catalog {

enum class RowShape { kRecord, kEntry, kSnapshotRow, kChangesRow };

class RowMapping {
 public:
  // `entry_key` (kEntry only, optional): the BIGINT column the entries are
  // ordered by, unique within a container when `unique_entry_key`.
  RowMapping(const CatalogTable& table, store::Kind kind, RowShape shape,
             std::vector<std::string_view> key_columns, std::string_view entry_key = {},
             bool unique_entry_key = false);

  const CatalogTable& table() const { return *table_; }
  store::Kind kind() const { return kind_; }
  RowShape shape() const { return shape_; }
  // Ended versions move to history (the table has an end_snapshot column and
  // its kind has a history form).
  bool versioned() const { return end_column_ >= 0; }
  // The end_snapshot column of a versioned table, -1 otherwise.
  int end_column() const { return end_column_; }
  // The begin_snapshot and end_snapshot columns of a table with a lifetime
  // (versioned records and entries such as tags alike), -1 without one.
  int begin_column() const { return begin_column_; }
  int lifetime_end_column() const { return lifetime_end_column_; }

  // The key of `row`: its kind's current key, or for a versioned row whose
  // end_snapshot is set, the history key. Throws store::InvalidArgumentError
  // for a row of the wrong shape or a NULL or negative key column.
  store::Key KeyOf(const Row& row) const;
  // The key prefixes a scan narrowed by equalities on leading key columns
  // visits: `current` and, for versioned tables, `history`.
  std::vector<store::Subspace> Subspaces() const;
  const std::vector<int>& key_columns() const { return key_columns_; }

  // A fresh record of the kind this table lives in.
  std::unique_ptr<google::protobuf::Message> NewRecord() const;

  // kRecord, kSnapshotRow, kChangesRow: copies the row's cells into `record`
  // (for the merged snapshot shapes, only this table's columns).
  void WriteRecord(const Row& row, google::protobuf::Message* record) const;
  Row ReadRecord(const google::protobuf::Message& record) const;
  // Only the columns `wanted` marks (one flag per column); the others are NULL.
  Row ReadRecord(const google::protobuf::Message& record, const std::vector<bool>& wanted) const;

  // kRecord: the same row ReadRecord gives for the record parsed from
  // `payload` (the serialized record, unframed; `wanted` as above, empty for
  // every column), read straight from its wire form, with the record's write
  // ordinal in `*ordinal` (0 without one). No message is built: a scan pays
  // no allocation per record and no reflection per cell. Throws
  // store::CorruptionError where parsing the record would fail (a malformed
  // payload, a string that is not UTF-8).
  Row ReadPayload(std::string_view payload, const std::vector<bool>& wanted,
                  uint64_t* ordinal) const;
  // kEntry: the row and write ordinal of each entry of the container
  // serialized in `payload` (unframed) whose entry key lies in [entry_low,
  // entry_high] (every entry of a table without one), in the container's
  // order: the rows ReadEntry gives, with the cells `wanted` marks (empty:
  // every column; the others NULL), read straight from the wire form as
  // ReadPayload reads a record. Throws store::CorruptionError where parsing
  // the container would fail.
  std::vector<std::pair<Row, uint64_t>> ReadEntriesPayload(std::string_view payload,
                                                           const std::vector<bool>& wanted,
                                                           int64_t entry_low,
                                                           int64_t entry_high) const;

  // Whether every wanted column is part of the key (for a versioned table,
  // end_snapshot too: NULL in `current`, the last component in `history`), so
  // a row's wanted cells can be read from its key alone. Never for kEntry
  // rows: one key holds many of them.
  bool KeyCovers(const std::vector<bool>& wanted) const;
  // The row's wanted cells read from its encoded key (KeyCovers(wanted)); the
  // others are NULL.
  Row ReadKey(std::string_view key, const std::vector<bool>& wanted) const;

  // kEntry: the container's own fields come from the row; the row's other
  // cells make one entry.
  void WriteContainer(const Row& row, google::protobuf::Message* container) const;
  void WriteEntry(const Row& row, google::protobuf::Message* entry) const;
  // The entries of a container and the row each one makes.
  int EntryCount(const google::protobuf::Message& container) const;
  google::protobuf::Message* AddEntry(google::protobuf::Message* container) const;
  Row ReadEntry(const google::protobuf::Message& container, int index) const;
  void RemoveEntry(google::protobuf::Message* container, int index) const;

  // Ordered entries (an entry key column, or none: insertion order).
  bool ordered_entries() const { return entry_key_ >= 0; }
  // The entry key column (-1 without one) and the key of entry `index`.
  int entry_key_column() const { return entry_key_; }
  int64_t EntryKey(const google::protobuf::Message& container, int index) const;
  // The indices [first, last) of the entries `row` may match: those with its
  // entry key, or every entry without one.
  std::pair<int, int> EntryRange(const google::protobuf::Message& container, const Row& row) const;
  // Writes `row` as a new entry where the order puts it (after the entries
  // of an equal key; at the end without an entry key).
  // Throws store::ConstraintError when the entry key is unique and taken.
  // `ordinal`: the entry's write ordinal, for a table that carries one.
  void InsertEntry(google::protobuf::Message* container, const Row& row,
                   uint64_t ordinal = 0) const;

  // Checks the row's length and each cell's type against the table.
  void Validate(const Row& row) const;

  // --- Write ordinals (records.proto, "Write ordinals") ---
  // Whether this table's rows (kRecord) or entries (kEntry) carry a write
  // ordinal, so that scans return them in the order they were written rather
  // than in key order.
  bool has_write_ordinal() const { return ordinal_ != nullptr; }
  // The ordinal of a record (kRecord) or an entry message (kEntry); 0 when
  // unset or when the table carries none.
  uint64_t WriteOrdinal(const google::protobuf::Message& message) const;
  uint64_t EntryWriteOrdinal(const google::protobuf::Message& container, int index) const;
  // No-op for a table that carries none.
  void SetWriteOrdinal(google::protobuf::Message* message, uint64_t ordinal) const;
  // kRecord: the ordinal read from a record's serialized payload without
  // parsing the record (for scans served from keys). 0 when absent, or when
  // the payload does not parse as far as the ordinal: it orders rows only,
  // and the full read of a value checks its integrity.
  uint64_t WriteOrdinalOfPayload(std::string_view payload) const;
  // kEntry: the entry at `index`, to update in place (keeping its ordinal).
  google::protobuf::Message* MutableEntry(google::protobuf::Message* container, int index) const;

 private:
  struct ColumnField {
    const google::protobuf::FieldDescriptor* field;
    bool in_container;  // kEntry: the field is the container's, not the entry's
    // kRecord and kEntry: the field's type and wire type, as read.
    google::protobuf::FieldDescriptor::Type type = google::protobuf::FieldDescriptor::TYPE_INT64;
    store::PayloadWireFormat::WireType wire_type = store::PayloadWireFormat::WIRETYPE_VARINT;
  };

  uint64_t KeyComponent(const Row& row, int column) const;
  // kRecord and kEntry: fills column_of_field_ and column_of_entry_field_;
  // every field must be one ReadField decodes.
  void IndexFieldNumbers();
  // Sets the wanted cells of the fields without presence (those of the
  // record or container, or with `entry_fields` of an entry) to their zero
  // value, which parsing gives such a field when it is absent; the cells of
  // fields with presence stay NULL until read.
  void SetZeroValues(Row& row, const std::vector<bool>& wanted, bool entry_fields) const;
  // Reads field `number` of a serialized message into the cell of the
  // column `column_of_field` maps it to; kSkip for a field no wanted column
  // maps, or of another wire type than declared (an unknown field to the
  // parser).
  store::FieldRead ReadField(const std::vector<int>& column_of_field, int number,
                             store::PayloadWireFormat::WireType wire_type,
                             google::protobuf::io::CodedInputStream& input,
                             const std::vector<bool>& wanted, Row& row) const;

  const CatalogTable* table_;
  store::Kind kind_;
  RowShape shape_;
  std::vector<int> key_columns_;
  int end_column_ = -1;
  int begin_column_ = -1;
  int lifetime_end_column_ = -1;
  const google::protobuf::FieldDescriptor* entries_ = nullptr;
  int entry_key_ = -1;  // the column entries are ordered by, -1: write order
  bool unique_entry_key_ = false;
  const google::protobuf::FieldDescriptor* ordinal_ = nullptr;  // write_ordinal, if carried
  std::vector<ColumnField> fields_;                             // one per table column
  // The column of each field number, -1 for none: of the record (kRecord)
  // or container (kEntry), and of an entry (kEntry).
  std::vector<int> column_of_field_;
  std::vector<int> column_of_entry_field_;
  // The columns whose fields have no presence (an absent one reads as its
  // zero value): of the record or container, and of an entry.
  std::vector<int> zero_columns_;
  std::vector<int> entry_zero_columns_;
};

// The mappings of every fixed table of a catalog version. Both versions map a
// table onto the same kind and record: 1.1 only maps more fields (and one
// more table), so a store keeps its rows when it is raised.
const std::vector<RowMapping>& RowMappings(CatalogVersion version);
const std::vector<RowMapping>& RowMappingsV1_0();
// The mapping of a fixed catalog table at `version`, or nullptr for any other name.
const RowMapping* FindRowMapping(CatalogVersion version, std::string_view table_name);

}  // namespace moraine::catalog
