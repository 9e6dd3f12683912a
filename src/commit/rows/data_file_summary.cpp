#include "commit/rows/data_file_summary.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "store/error.h"
#include "store/value_frame.h"

namespace moraine::commit::files {

using store::Kind;
using store::Subspace;
using store::v1::DataFileSummary;
using store::v1::DataFileSummaryBounds;
using store::v1::DataFileSummaryPage;
using store::v1::FileColumnBounds;

namespace {

// A data file row's place in its page: its id, then its end snapshot, a
// current row (no end) last.
using EntryOrder = std::pair<int64_t, int64_t>;

EntryOrder OrderOf(const DataFileSummary& summary) {
  return {summary.data_file_id(), summary.has_end_snapshot() ? summary.end_snapshot()
                                                             : std::numeric_limits<int64_t>::max()};
}

// The table and data file id in a data file or file stats key.
std::pair<int64_t, int64_t> FileOf(std::string_view key) {
  const store::Key decoded = store::Key::Decode(key);
  return {static_cast<int64_t>(decoded.component(0)), static_cast<int64_t>(decoded.component(1))};
}

// The summary of the data file row stored as `row`, whose file's stats
// container is `stats` (nullopt: it has none).
DataFileSummary Summarize(std::string_view row, const std::optional<std::string>& stats) {
  store::v1::DataFileRecord record;
  store::UnframeValue(Kind::kDataFile, row, &record);
  DataFileSummary summary;
  summary.set_data_file_id(record.data_file_id());
  summary.set_begin_snapshot(record.begin_snapshot());
  if (record.has_end_snapshot()) summary.set_end_snapshot(record.end_snapshot());
  if (record.has_record_count()) summary.set_record_count(record.record_count());
  if (!stats) return summary;
  store::v1::FileColumnStatsSetRecord set;
  store::UnframeValue(Kind::kFileColumnStatsSet, *stats, &set);
  std::vector<const store::v1::FileColumnStatsEntry*> kept;
  for (const auto& entry : set.entries()) {
    if (entry.column_id() <= kMaxSummarizedColumnId) kept.push_back(&entry);
  }
  std::sort(kept.begin(), kept.end(),
            [](const auto* a, const auto* b) { return a->column_id() < b->column_id(); });
  for (const auto* entry : kept) {
    auto& column = *summary.add_columns();
    column.set_column_id(entry->column_id());
    if (entry->has_min_value()) column.set_min_value(entry->min_value());
    if (entry->has_max_value()) column.set_max_value(entry->max_value());
    if (entry->has_null_count()) column.set_null_count(entry->null_count());
    if (entry->has_value_count()) column.set_value_count(entry->value_count());
    if (entry->has_contains_nan()) column.set_contains_nan(entry->contains_nan());
  }
  return summary;
}

// The summaries of every row of data file `file` of `table`, as `view`
// holds them (Get and Scan as StagedView's or a KvSnapshot's).
template <class Get, class Scan>
std::vector<DataFileSummary> SummarizeRowsOf(int64_t table, int64_t file, const Get& get,
                                             const Scan& scan) {
  const auto t = static_cast<uint64_t>(table), f = static_cast<uint64_t>(file);
  const auto stats = get(store::Key::Current(Kind::kFileColumnStatsSet, {t, f}).Encode());
  std::vector<DataFileSummary> rows;
  scan(store::PrefixRange(Subspace::kHistory, Kind::kDataFile, {t, f}),
       [&](std::string_view, std::string_view value) { rows.push_back(Summarize(value, stats)); });
  if (const auto current = get(store::Key::Current(Kind::kDataFile, {t, f}).Encode())) {
    rows.push_back(Summarize(*current, stats));
  }
  return rows;
}

// The element of `columns` (in column_id order) whose id is `column_id`, or
// null: a summary's stats entries and a page's column bounds alike.
template <class Columns>
auto FindById(const Columns& columns, int64_t column_id) -> decltype(&*columns.begin()) {
  const auto found =
      std::lower_bound(columns.begin(), columns.end(), column_id,
                       [](const auto& column, int64_t id) { return column.column_id() < id; });
  return found != columns.end() && found->column_id() == column_id ? &*found : nullptr;
}

DataFileSummaryPage PageOf(const std::map<EntryOrder, DataFileSummary>& entries) {
  DataFileSummaryPage page;
  for (const auto& [order, summary] : entries) *page.add_files() = summary;
  return page;
}

// `text` as the integer it is the canonical text of (no sign but a minus,
// no leading zero, no "-0"), or nullopt.
std::optional<int64_t> CanonicalInteger(const std::string& text) {
  const size_t digits = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == digits || (text[digits] == '0' && text.size() > digits + 1) || text == "-0") {
    return std::nullopt;
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A stat of a page's entries folded into one: kept while every entry has it.
template <class T>
class EntryFold {
 public:
  // Folds in one entry's stat (`present` false: the entry lacks it).
  template <class Fold>
  void Add(bool present, const T& value, const Fold& fold) {
    if (!present) {
      every_ = false;
    } else if (every_) {
      value_ = seen_ ? fold(value_, value) : value;
      seen_ = true;
    }
  }
  void Lose() { every_ = false; }
  bool has_value() const { return every_ && seen_; }
  const T& value() const { return value_; }

 private:
  bool every_ = true;
  bool seen_ = false;
  T value_{};
};

// The bounds of `column_id` over `page`'s entries, or nullopt when an entry
// has no stats of it.
std::optional<FileColumnBounds> ColumnBoundsOf(const DataFileSummaryPage& page, int64_t column_id) {
  EntryFold<std::string> least, greatest;
  EntryFold<int64_t> least_integer, greatest_integer, null_count, value_count;
  EntryFold<bool> any_nan;
  const auto min = [](const auto& a, const auto& b) { return std::min(a, b); };
  const auto max = [](const auto& a, const auto& b) { return std::max(a, b); };
  for (const DataFileSummary& file : page.files()) {
    const auto* entry = FindColumn(file, column_id);
    if (!entry) return std::nullopt;
    // Both texts of the entry, so that an entry whose min exceeds its max is
    // inside too.
    const bool both = entry->has_min_value() && entry->has_max_value();
    const std::string& lowest =
        both ? std::min(entry->min_value(), entry->max_value())
             : (entry->has_min_value() ? entry->min_value() : entry->max_value());
    const std::string& highest =
        both ? std::max(entry->min_value(), entry->max_value())
             : (entry->has_min_value() ? entry->min_value() : entry->max_value());
    least.Add(entry->has_min_value(), lowest, min);
    greatest.Add(entry->has_max_value(), highest, max);
    const auto low = both ? CanonicalInteger(entry->min_value()) : std::nullopt;
    const auto high = both ? CanonicalInteger(entry->max_value()) : std::nullopt;
    if (low && high) {
      least_integer.Add(true, std::min(*low, *high), min);
      greatest_integer.Add(true, std::max(*low, *high), max);
    } else {
      least_integer.Lose();
      greatest_integer.Lose();
    }
    null_count.Add(entry->has_null_count(), entry->null_count(), max);
    value_count.Add(entry->has_value_count(), entry->value_count(), max);
    any_nan.Add(entry->has_contains_nan(), entry->contains_nan(),
                [](bool a, bool b) { return a || b; });
  }
  FileColumnBounds bounds;
  bounds.set_column_id(column_id);
  if (least.has_value()) bounds.set_min_text(least.value());
  if (greatest.has_value()) bounds.set_max_text(greatest.value());
  if (least_integer.has_value() && greatest_integer.has_value()) {
    bounds.set_min_integer(least_integer.value());
    bounds.set_max_integer(greatest_integer.value());
  }
  if (null_count.has_value()) bounds.set_max_null_count(null_count.value());
  if (value_count.has_value()) bounds.set_max_value_count(value_count.value());
  if (any_nan.has_value()) bounds.set_any_contains_nan(any_nan.value());
  return bounds;
}

// Puts (or deletes, for no entries) the page `page_key` and its bounds in
// `put`/`erase`.
template <class Put, class Erase>
void WritePage(const std::string& page_key, const std::map<EntryOrder, DataFileSummary>& entries,
               bool with_bounds, const Put& put, const Erase& erase) {
  const std::string bounds_key = BoundsKeyOfPage(store::Key::Decode(page_key)).Encode();
  if (entries.empty()) {
    erase(page_key);
    if (with_bounds) erase(bounds_key);
    return;
  }
  const DataFileSummaryPage page = PageOf(entries);
  put(page_key, store::FrameValue(Kind::kDataFileSummary, page));
  if (with_bounds) put(bounds_key, store::FrameValue(Kind::kDataFileSummaryBounds, BoundsOf(page)));
}

// Every data file row's summary in `snapshot`, by page key.
std::map<std::string, std::map<EntryOrder, DataFileSummary>> SummarizeAll(
    const store::KvSnapshot& snapshot) {
  std::set<std::pair<int64_t, int64_t>> files;
  for (const Subspace subspace : {Subspace::kCurrent, Subspace::kHistory}) {
    for (auto it = snapshot.Scan(store::PrefixRange(subspace, Kind::kDataFile)); it->Valid();
         it->Next()) {
      files.insert(FileOf(it->key()));
    }
  }
  const auto get = [&](const std::string& key) { return snapshot.Get(key); };
  const auto scan = [&](const store::KeyRange& range, const auto& visit) {
    for (auto it = snapshot.Scan(range); it->Valid(); it->Next()) visit(it->key(), it->value());
  };
  std::map<std::string, std::map<EntryOrder, DataFileSummary>> pages;
  for (const auto& [table, file] : files) {
    auto& page = pages[SummaryPageKey(table, file).Encode()];
    for (auto& summary : SummarizeRowsOf(table, file, get, scan)) {
      page.emplace(OrderOf(summary), std::move(summary));
    }
  }
  return pages;
}

}  // namespace

store::Key SummaryPageKey(int64_t table_id, int64_t data_file_id) {
  return store::Key::Current(
      Kind::kDataFileSummary,
      {static_cast<uint64_t>(table_id), static_cast<uint64_t>(data_file_id / kSummaryPageFiles)});
}

store::KeyRange SummaryRange(int64_t table_id) {
  return store::PrefixRange(Subspace::kCurrent, Kind::kDataFileSummary,
                            {static_cast<uint64_t>(table_id)});
}

store::KeyRange SummaryBoundsRange(int64_t table_id) {
  return store::PrefixRange(Subspace::kCurrent, Kind::kDataFileSummaryBounds,
                            {static_cast<uint64_t>(table_id)});
}

store::Key BoundsKeyOfPage(const store::Key& page_key) {
  return store::Key::Current(Kind::kDataFileSummaryBounds,
                             {page_key.component(0), page_key.component(1)});
}

store::Key PageKeyOfBounds(const store::Key& bounds_key) {
  return store::Key::Current(Kind::kDataFileSummary,
                             {bounds_key.component(0), bounds_key.component(1)});
}

DataFileSummaryBounds BoundsOf(const DataFileSummaryPage& page) {
  DataFileSummaryBounds bounds;
  if (page.files_size() == 0) return bounds;
  bool all_current = true;
  int64_t max_begin = std::numeric_limits<int64_t>::min();
  std::optional<int64_t> record_count_sum = 0;
  for (const DataFileSummary& file : page.files()) {
    bounds.add_data_file_ids(file.data_file_id());
    all_current = all_current && !file.has_end_snapshot();
    max_begin = std::max(max_begin, file.begin_snapshot());
    if (!file.has_record_count() ||
        (record_count_sum &&
         __builtin_add_overflow(*record_count_sum, file.record_count(), &*record_count_sum))) {
      record_count_sum.reset();
    }
  }
  bounds.set_all_current(all_current);
  bounds.set_max_begin_snapshot(max_begin);
  if (record_count_sum) bounds.set_record_count_sum(*record_count_sum);
  // A column every entry has stats of is one the first entry has.
  for (const auto& column : page.files(0).columns()) {
    if (auto column_bounds = ColumnBoundsOf(page, column.column_id())) {
      *bounds.add_columns() = std::move(*column_bounds);
    }
  }
  return bounds;
}

void ReadSummaryBounds(std::string_view value, DataFileSummaryBounds* bounds) {
  store::UnframeValue(Kind::kDataFileSummaryBounds, value, bounds);
  for (int i = 1; i < bounds->columns_size(); ++i) {
    if (bounds->columns(i - 1).column_id() >= bounds->columns(i).column_id()) {
      throw store::CorruptionError("data file summary bounds: the columns are out of order");
    }
  }
}

const FileColumnBounds* FindColumn(const DataFileSummaryBounds& bounds, int64_t column_id) {
  return FindById(bounds.columns(), column_id);
}

store::KeyRange CurrentDataFileRange(int64_t table_id) {
  return store::PrefixRange(Subspace::kCurrent, Kind::kDataFile, {static_cast<uint64_t>(table_id)});
}

store::KeyRange EndedDataFileRange(int64_t table_id) {
  return store::PrefixRange(Subspace::kHistory, Kind::kDataFile, {static_cast<uint64_t>(table_id)});
}

store::KeyRange FileStatsRange(int64_t table_id) {
  return store::PrefixRange(Subspace::kCurrent, Kind::kFileColumnStatsSet,
                            {static_cast<uint64_t>(table_id)});
}

DataFileSummaryPage ReadSummaryPage(std::string_view value) {
  DataFileSummaryPage page;
  ReadSummaryPage(value, &page);
  return page;
}

void ReadSummaryPage(std::string_view value, DataFileSummaryPage* page) {
  store::UnframeValue(Kind::kDataFileSummary, value, page);
  for (int i = 1; i < page->files_size(); ++i) {
    if (!(OrderOf(page->files(i - 1)) < OrderOf(page->files(i)))) {
      throw store::CorruptionError("data file summary page: its entries are out of order");
    }
  }
  for (const auto& file : page->files()) {
    for (int i = 1; i < file.columns_size(); ++i) {
      if (file.columns(i - 1).column_id() >= file.columns(i).column_id()) {
        throw store::CorruptionError("data file summary page: a file's columns are out of order");
      }
    }
  }
}

const store::v1::FileColumnStatsEntry* FindColumn(const DataFileSummary& summary,
                                                  int64_t column_id) {
  return FindById(summary.columns(), column_id);
}

bool EveryEntryLiveAt(const DataFileSummaryBounds& bounds, int64_t snapshot) {
  return bounds.all_current() && bounds.max_begin_snapshot() <= snapshot;
}

bool LiveAt(const DataFileSummary& summary, int64_t snapshot) {
  return summary.begin_snapshot() <= snapshot &&
         (!summary.has_end_snapshot() || summary.end_snapshot() > snapshot);
}

void SummarizeEveryFile(const store::KvSnapshot& snapshot, store::WriteBatch* batch) {
  for (const Kind kind : {Kind::kDataFileSummary, Kind::kDataFileSummaryBounds}) {
    for (auto it = snapshot.Scan(store::PrefixRange(Subspace::kCurrent, kind)); it->Valid();
         it->Next()) {
      batch->Delete(std::string(it->key()));
    }
  }
  for (const auto& [key, value] : ExpectedSummaryPages(snapshot)) batch->Put(key, value);
}

std::map<std::string, std::string> ExpectedSummaryPages(const store::KvSnapshot& snapshot) {
  std::map<std::string, std::string> pages;
  for (const auto& [key, entries] : SummarizeAll(snapshot)) {
    WritePage(
        key, entries, true,
        [&](const std::string& at, std::string value) { pages.emplace(at, std::move(value)); },
        [](const std::string&) {});
  }
  return pages;
}

void UpdateFileSummaryPages(StagedView& view, bool with_bounds) {
  // The files whose rows or stats the view stages, by page.
  std::map<std::string, std::set<std::pair<int64_t, int64_t>>> touched;
  const auto touch = [&](std::string_view key, const std::optional<std::string>&) {
    const auto [table, file] = FileOf(key);
    touched[SummaryPageKey(table, file).Encode()].insert({table, file});
  };
  view.VisitStagedWrites(store::PrefixRange(Subspace::kCurrent, Kind::kDataFile), touch);
  view.VisitStagedWrites(store::PrefixRange(Subspace::kHistory, Kind::kDataFile), touch);
  view.VisitStagedWrites(store::PrefixRange(Subspace::kCurrent, Kind::kFileColumnStatsSet), touch);
  const auto get = [&](const std::string& key) { return view.Get(key); };
  const auto scan = [&](const store::KeyRange& range, const auto& visit) {
    view.Scan(range, visit);
  };
  for (const auto& [page_key, files] : touched) {
    std::map<EntryOrder, DataFileSummary> entries;
    std::set<int64_t> ids;
    for (const auto& [table, file] : files) ids.insert(file);
    if (const auto stored = view.Get(page_key)) {
      DataFileSummaryPage page = ReadSummaryPage(*stored);
      for (auto& summary : *page.mutable_files()) {
        if (!ids.count(summary.data_file_id())) {
          entries.emplace(OrderOf(summary), std::move(summary));
        }
      }
    }
    for (const auto& [table, file] : files) {
      for (auto& summary : SummarizeRowsOf(table, file, get, scan)) {
        entries.emplace(OrderOf(summary), std::move(summary));
      }
    }
    WritePage(
        page_key, entries, with_bounds,
        [&](const std::string& at, std::string value) { view.Put(at, std::move(value)); },
        [&](const std::string& at) { view.Delete(at); });
  }
}

}  // namespace moraine::commit::files
