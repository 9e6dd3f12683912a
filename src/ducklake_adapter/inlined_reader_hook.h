// The filters DuckDB pushed into a scan of a table's inlined rows, made
// visible to moraine's ReadInlinedData.
//
// DuckLake's inlined-row reader (DuckLakeInlinedDataReader) asks its manager
// for the rows with ReadInlinedData(snapshot, table, columns), which names no
// filter: the reader applies the scan's filters itself, in Scan, to every row
// the answer holds. A point query over 200,000 inlined rows so had moraine
// decode, copy and hand over all 200,000. The reader's TryInitializeScan is
// the one call that reads them (ReadInlinedData runs inside it), so moraine
// wraps it: Install replaces that method's slot in the loaded DuckLake's
// vtable of DuckLakeInlinedDataReader with a function that publishes the
// reader's filters to its thread for the length of the call, then calls
// DuckLake's own. The rows ReadInlinedData then leaves out are rows the
// reader's Scan would drop (inlined_data_result.h), so the answer DuckLake
// gives stays the same.
//
// The vtable is not exported: it is found in the module's read-only
// relocated data as the one place holding DuckLake's exported
// TryInitializeScan and Scan at the two slots DuckDB's BaseFileReader gives
// them (the slot offsets are read from member function pointers, so they are
// DuckDB's, the release moraine is compiled for). A build where that place is
// not exactly one leaves the reads unfiltered, with the reason.
//
// Thread-safety: Install runs once, under the registration's lock, before
// any scan of a lake moraine serves; Current is per thread.
#pragma once

#include <string>
#include <vector>

#include "duckdb/common/multi_file/base_file_reader.hpp"

namespace moraine::ducklake_adapter {

class DuckLakeModule;

class InlinedReaderHook {
 public:
  // What the inlined reader whose TryInitializeScan runs on this thread will
  // apply to the rows ReadInlinedData returns.
  struct Scan {
    // Its filters (keyed by the position of the column in ReadInlinedData's
    // `columns`), or null.
    const duckdb::TableFilterSet* filters = nullptr;
    // The type each of those columns has in the reader's rows (what its
    // filters compare), by position.
    std::vector<duckdb::LogicalType> column_types;
    // Whether the reader maps anything onto rows by their position in the
    // answer (a deletion filter) or evaluates an expression before its
    // filters: then no row may be left out.
    bool rows_must_stay = true;
  };

  // Wraps the loaded DuckLake's inlined reader. Returns "" once installed
  // (again: a no-op), otherwise why not (nothing is changed then).
  static std::string Install(const DuckLakeModule& module);
  // The scan being initialized on this thread, or null outside one.
  static const Scan* Current();
};

}  // namespace moraine::ducklake_adapter
