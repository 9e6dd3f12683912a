// The part every storage of a fixed DuckLake table shares: a scan visits the
// key ranges its plan narrows to, merges a versioned table's live and ended
// versions, and hands out rows in the order they were written. How one
// record becomes rows, and how rows are written, is the subclass's.
//
// Thread-safety: not thread-safe; used as its transaction is, one thread at a
// time (row_storage.h).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "catalog/row_mapping.h"
#include "commit/rows/storage/row_storage.h"
#include "commit/rows/storage/scan_plan.h"
#include "commit/rows/storage/staged_records.h"

namespace moraine::commit {

class FixedRowStorage : public RowStorage {
 public:
  // The storage for the rows of `mapping`, by its shape.
  static std::unique_ptr<FixedRowStorage> For(const catalog::RowMapping& mapping,
                                              StagedRecords& staged);

  FixedRowStorage(const catalog::RowMapping& mapping, StagedRecords& staged)
      : mapping_(mapping), staged_(staged) {}

  void Scan(const ScanRequest& request, const ScannedRowSink& sink) final;

 protected:
  using RowSink = std::function<void(Row row, uint64_t ordinal)>;

  // The rows the framed record `value` holds (none, one, or a container's
  // entries). Throws what unframing throws for a value that is not one.
  virtual void ReadValueRows(std::string_view value, const ScanPlan& plan, const RowSink& sink) = 0;
  // Whether the framed record `value` holds a row of this table, read
  // without decoding it (for scans the key alone serves).
  virtual bool HoldsRow(std::string_view value) const = 0;

  // The record the framed `value` holds, decoded.
  std::unique_ptr<google::protobuf::Message> DecodeValue(std::string_view value) const;
  // The record's columns `plan` wants.
  Row ReadWanted(const google::protobuf::Message& record, const ScanPlan& plan) const;

  const catalog::RowMapping& mapping_;
  StagedRecords& staged_;

 private:
  using RecordVisitor = std::function<void(std::string_view key, std::string_view value)>;

  // The rows one stored record holds, with their ordinals.
  void ReadRows(std::string_view value, const ScanPlan& plan, std::string_view key,
                const RowSink& sink);
  // Visits the records of `ranges`; the two ranges of a versioned table as
  // ScanVersions does.
  void ScanRanges(const std::vector<store::KeyRange>& ranges, const RecordVisitor& read);
  void ScanVersions(const store::KeyRange& current, const store::KeyRange& history,
                    const RecordVisitor& read);
};

}  // namespace moraine::commit
