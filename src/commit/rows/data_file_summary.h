// The summaries of a table's data files: per ducklake_data_file row, its
// file id, begin and end snapshots and the file's column stats of the
// summarized columns, kept in pages of 64 file ids (DataFileSummaryPage,
// records.proto).
//
// A table fed by streaming inserts holds one file per commit: 10,000 files
// are 10,000 data file rows and 10,000 stats containers, and pruning a
// selective scan by the stats read them all. A scan reads the pages instead
// (one value per 64 file ids), decides which files the filters keep, and
// reads the rows of those only.
//
// Only column ids up to kMaxSummarizedColumnId are summarized, so that a
// commit adding a file to a wide table rewrites a page of bounded size (as
// Iceberg keeps metrics for a table's first 100 columns by default); a
// filter on a later column is decided from the stats rows, as before.
//
// Beside each page, its bounds (DataFileSummaryBounds): per column, what
// every entry of the page has in common (the least min and greatest max, the
// greatest counts) and, for a count of the table's rows, the entries' ids
// and record counts summed. A selective scan of a table of 100,000 files
// reads the 1,563 small bounds first and parses only the pages whose bounds
// its filters cannot rule out; a count parses only the pages with a file
// that is not live.
//
// The pages and bounds are derived data, written in the commit that writes
// the rows (UpdateFileSummaryPages, from what the commit stages, against the
// head it lands on), and trusted only where the lake's head says every row
// has its entry (HeadRecord.data_file_summaries) and every page its bounds
// (HeadRecord.data_file_summary_bounds); a lake whose head does not is read
// row by row, or page by page, as before.
//
// Thread-safety: functions of their arguments.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "commit/rows/staged_view.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/kv_store.h"
#include "store/records.pb.h"
#include "store/write_batch.h"

namespace moraine::commit::files {

// File ids a summary page covers.
inline constexpr int64_t kSummaryPageFiles = 64;
// The highest column id whose stats the summaries carry.
inline constexpr int64_t kMaxSummarizedColumnId = 128;

// The key of the page holding the summaries of data file `data_file_id` of
// table `table_id`.
store::Key SummaryPageKey(int64_t table_id, int64_t data_file_id);
// The range of every summary page of table `table_id`.
store::KeyRange SummaryRange(int64_t table_id);
// The ranges whose writes change a table's summaries: its data file rows,
// current and ended, and its files' column stats.
store::KeyRange CurrentDataFileRange(int64_t table_id);
store::KeyRange EndedDataFileRange(int64_t table_id);
store::KeyRange FileStatsRange(int64_t table_id);

// The range of every page's bounds of table `table_id`, the key of the
// bounds of the page keyed `page_key`, and the key of the page whose bounds
// are keyed `bounds_key`.
store::KeyRange SummaryBoundsRange(int64_t table_id);
store::Key BoundsKeyOfPage(const store::Key& page_key);
store::Key PageKeyOfBounds(const store::Key& bounds_key);

// The bounds of `page`'s entries (records.proto).
store::v1::DataFileSummaryBounds BoundsOf(const store::v1::DataFileSummaryPage& page);
// Reads framed bounds into `bounds`. Throws store::CorruptionError for a
// value that is not one, or whose columns are out of column_id order.
void ReadSummaryBounds(std::string_view value, store::v1::DataFileSummaryBounds* bounds);
// The bounds of `column_id` in `bounds`, or null when some entry of the
// page has no stats of it.
const store::v1::FileColumnBounds* FindColumn(const store::v1::DataFileSummaryBounds& bounds,
                                              int64_t column_id);

// Reads a framed page. Throws store::CorruptionError for a value that is
// not one, or whose entries are out of (data_file_id, end_snapshot) order.
store::v1::DataFileSummaryPage ReadSummaryPage(std::string_view value);
// The same into `page` (which may live on an arena, as a scan's pages do).
void ReadSummaryPage(std::string_view value, store::v1::DataFileSummaryPage* page);

// The stats entry of `column_id` in `summary`, or null when the file has
// none (then DuckLake keeps the file). `column_id` must be summarized.
const store::v1::FileColumnStatsEntry* FindColumn(const store::v1::DataFileSummary& summary,
                                                  int64_t column_id);

// Whether the row `summary` summarizes is live at `snapshot`.
bool LiveAt(const store::v1::DataFileSummary& summary, int64_t snapshot);
// Whether every entry of the page `bounds` bounds is live at `snapshot`
// (then its data_file_ids are the page's live files).
bool EveryEntryLiveAt(const store::v1::DataFileSummaryBounds& bounds, int64_t snapshot);

// Puts into `batch` the summary pages and their bounds of every data file
// row `snapshot` holds, and deletes any page or bounds it holds: for a lake
// whose head does not say its files are summarized and bounded, by `moraine
// migrate`.
void SummarizeEveryFile(const store::KvSnapshot& snapshot, store::WriteBatch* batch);

// The framed pages and bounds of every data file row `snapshot` holds, by
// key: what they must be, for `moraine verify`.
std::map<std::string, std::string> ExpectedSummaryPages(const store::KvSnapshot& snapshot);

// Brings the summary pages in `view` (and their bounds, if `with_bounds`)
// up to date with every data file row and file stats container the view
// stages (put or deleted), reading each touched file's rows and page
// through the view. Called once per commit, before it lands.
void UpdateFileSummaryPages(StagedView& view, bool with_bounds);

}  // namespace moraine::commit::files
