#include "tools/store_verifier.h"

#include <google/protobuf/message.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <tuple>
#include <utility>

#include "catalog/catalog_state.h"
#include "catalog/catalog_version.h"
#include "catalog/records.h"
#include "catalog/row_mapping.h"
#include "commit/lake/store_records.h"
#include "commit/rows/data_file_summary.h"
#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/rows/inlined_table_shape.h"
#include "commit/tags/protected_tag.h"
#include "store/error.h"
#include "store/key.h"
#include "store/record_types.h"
#include "store/value_frame.h"

namespace moraine::tools {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using store::Key;
using store::Kind;
using store::Subspace;

// A kind plus its identity components (a history key without its end).
using Identity = std::pair<Kind, std::vector<uint64_t>>;

struct Version {
  Identity identity;
  int64_t begin = 0;
  std::optional<int64_t> end;  // nullopt: live
  std::string key;
  std::unique_ptr<Message> record;
};

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xF]);
  }
  return out;
}

std::optional<int64_t> IntField(const Message& message, const char* name) {
  const FieldDescriptor* field = message.GetDescriptor()->FindFieldByName(name);
  if (field == nullptr || field->cpp_type() != FieldDescriptor::CPPTYPE_INT64) return std::nullopt;
  if (field->has_presence() && !message.GetReflection()->HasField(message, field)) {
    return std::nullopt;
  }
  return message.GetReflection()->GetInt64(message, field);
}

std::string IdentityText(const Identity& identity) {
  std::string text = std::string(store::GetKindInfo(identity.first).name) + "(";
  for (size_t i = 0; i < identity.second.size(); ++i) {
    text += (i ? "," : "") + std::to_string(identity.second[i]);
  }
  return text + ")";
}

std::string End(std::optional<int64_t> end) { return end ? std::to_string(*end) : "live"; }

// Fields catalog version 1.1 added; a store at 1.0 leaves them unset.
struct NewerField {
  Kind kind;
  const char* name;
};
constexpr NewerField kFieldsOfV1_1[] = {
    {Kind::kSchema, "parent_schema_id"},          {Kind::kDataFile, "row_group_count"},
    {Kind::kDeleteFile, "row_group_count"},       {Kind::kFileColumnStatsSet, "min_is_exact"},
    {Kind::kFileColumnStatsSet, "max_is_exact"},  {Kind::kTableColumnStatsSet, "min_is_exact"},
    {Kind::kTableColumnStatsSet, "max_is_exact"},
};

// The entries of a container record (a repeated message field "entries").
std::vector<const Message*> Entries(const Message& record) {
  std::vector<const Message*> entries;
  const FieldDescriptor* field = record.GetDescriptor()->FindFieldByName("entries");
  if (field == nullptr || !field->is_repeated() || !field->message_type()) return entries;
  const auto* reflection = record.GetReflection();
  for (int i = 0; i < reflection->FieldSize(record, field); ++i) {
    entries.push_back(&reflection->GetRepeatedMessage(record, field, i));
  }
  return entries;
}

class Verifier {
 public:
  Verifier(const store::KvSnapshot& snapshot, const VerifyProgress& progress)
      : snapshot_(snapshot), progress_(progress) {
    for (const catalog::RowMapping& mapping :
         catalog::RowMappings(catalog::kNewestCatalogVersion)) {
      if (mapping.shape() == catalog::RowShape::kChangesRow) continue;
      mappings_.emplace(mapping.kind(), &mapping);
    }
  }

  VerifyReport Run() {
    try {
      Scan();
    } catch (const std::exception& error) {
      // The engine itself refused to read on (a damaged table file): what was
      // read is still checked, but the scan is incomplete.
      Report("engine", "", std::string("the scan stopped: ") + error.what());
    }
    if (!head_) {
      Report("head", "system/head", "the store has no head record: not a moraine catalog");
      return std::move(report_);
    }
    CheckSnapshots();
    CheckLifetimes();
    CheckLiveNames();
    CheckReferences();
    CheckIds();
    CheckInlined();
    CheckBatchSummaries();
    CheckFileSummaries();
    CheckFormatAndCatalogVersion();
    CheckProtectedTags();
    return std::move(report_);
  }

 private:
  void Report(std::string check, std::string key, std::string message) {
    report_.violations.push_back({std::move(check), std::move(key), std::move(message)});
  }

  // --- The scan: decode every key and value, check each record alone. ---

  void Scan() {
    for (auto it = snapshot_.Scan(store::KeyRange{}); it->Valid(); it->Next()) {
      ++report_.keys_scanned;
      if (progress_ && report_.keys_scanned % 4096 == 0) {
        progress_(report_.keys_scanned, static_cast<uint8_t>(it->key()[0]));
      }
      std::optional<Key> key;
      try {
        key = Key::Decode(it->key());
      } catch (const store::Error& error) {
        Report("key", Hex(it->key()), error.what());
        continue;
      }
      std::unique_ptr<Message> record = store::NewRecord(key->kind());
      try {
        store::UnframeValue(key->kind(), it->value(), record.get());
      } catch (const store::Error& error) {
        Report("value", key->ToString(), error.what());
        continue;
      }
      Collect(*key, std::move(record));
    }
    if (progress_) progress_(report_.keys_scanned, 0xFF);
  }

  void Collect(const Key& key, std::unique_ptr<Message> record) {
    CheckKeyMatchesRecord(key, *record);
    CheckNewerFields(key, *record);
    const store::KindInfo& info = store::GetKindInfo(key.kind());
    if (info.versioned) {
      CollectVersion(key, std::move(record));
      return;
    }
    const auto c = key.components();
    switch (key.kind()) {
      case Kind::kHead:
        head_ = static_cast<const catalog::HeadRecord&>(*record);
        break;
      case Kind::kFormat:
        format_ = static_cast<const store::v1::FormatRecord&>(*record);
        break;
      case Kind::kMigration:
        Report("format", key.ToString(), "a store-format migration was left unfinished");
        break;
      case Kind::kRestoreMarker:
        Report("format", key.ToString(), "a restore into this store was left unfinished");
        break;
      case Kind::kProtectedTag: {
        const auto& tag = static_cast<const store::v1::ProtectedTagRecord&>(*record);
        if (tag.tag_id() != c[0]) {
          Report("key-record", key.ToString(),
                 "the tag record names tag id " + std::to_string(tag.tag_id()));
        }
        tags_.emplace_back(key.ToString(), tag);
        break;
      }
      case Kind::kRevertMark: {
        const auto& mark = static_cast<const store::v1::RevertMarkRecord&>(*record);
        if (mark.snapshot_id() != static_cast<int64_t>(c[0])) {
          Report("key-record", key.ToString(),
                 "the revert mark names snapshot " + std::to_string(mark.snapshot_id()));
        }
        revert_snapshots_.insert(mark.snapshot_id());
        break;
      }
      case Kind::kSnapshot:
        snapshots_[static_cast<int64_t>(c[0])] =
            static_cast<const catalog::SnapshotRecord&>(*record);
        break;
      case Kind::kOption:
        if (c[0] == 0) global_options_ = static_cast<const catalog::OptionRecord&>(*record);
        break;
      case Kind::kViewColumnTag:
        view_column_tag_key_ = key.ToString();
        break;
      case Kind::kSchemaVersion:
        schema_versions_.emplace_back(key.ToString(),
                                      static_cast<const catalog::SchemaVersionRecord&>(*record));
        break;
      case Kind::kInlinedDataTable:
        registered_inlined_.emplace(c[0], c[1]);
        Needs(key, {Kind::kTable, {c[0]}});
        break;
      case Kind::kInlinedTableShape: {
        const auto& shape = static_cast<const store::v1::InlinedTableShapeRecord&>(*record);
        shapes_.emplace(std::make_pair(c[0], c[1]), key.ToString());
        shape_columns_.emplace(std::make_pair(c[0], c[1]),
                               shape.has_base_schema_version()
                                   ? static_cast<int>(shape.column_count())
                                   : shape.columns_size() + shape.keyed_columns_size());
        if (shape.has_base_schema_version()) CheckShapeDelta(key, c, shape);
        break;
      }
      case Kind::kInlinedRowBatch: {
        row_shapes_.emplace(std::make_pair(c[0], c[1]), key.ToString());
        const auto& batch = static_cast<const store::v1::InlinedRowBatchRecord&>(*record);
        batch_columns_.push_back({{c[0], c[1]}, key.ToString(), batch.columns_size()});
        if (!newest_batch_ || static_cast<int64_t>(c[2]) > newest_batch_->first) {
          newest_batch_.emplace(static_cast<int64_t>(c[2]), key.ToString());
        }
        CheckInlinedBatch(key, batch);
        try {
          actual_summaries_[{c[0], c[1], static_cast<int64_t>(c[2])}] = {
              key.ToString(), commit::inlined::Summarize(
                                  static_cast<int64_t>(c[2]), store::FrameValue(key.kind(), batch),
                                  static_cast<size_t>(batch.columns_size()))};
        } catch (const store::Error&) {
          // CheckInlinedBatch reported what is wrong with the batch.
        }
        break;
      }
      case Kind::kDataFileSummary:
      case Kind::kDataFileSummaryBounds:
        stored_file_pages_.emplace(key.Encode(), store::FrameValue(key.kind(), *record));
        break;
      case Kind::kInlinedBatchSummary: {
        commit::inlined::SummaryPage page;
        const std::string value = store::FrameValue(key.kind(), *record);
        try {
          page.Read(value);
        } catch (const store::Error& error) {
          Report("inlined-batch-summary", key.ToString(), error.what());
          break;
        }
        for (size_t batch = 0; batch < page.size(); ++batch) {
          const int64_t begin = page.begin_snapshot(batch);
          if (begin < 0 ||
              static_cast<uint64_t>(begin / commit::inlined::kSummaryPageSnapshots) != c[2]) {
            Report("inlined-batch-summary", key.ToString(),
                   "summarizes a batch of snapshot " + std::to_string(begin) +
                       ", which belongs to another page");
            continue;
          }
          stored_summaries_[{c[0], c[1], begin}] = {key.ToString(), page.Decode(batch)};
        }
        break;
      }
      case Kind::kInlinedDeleteTable:
        delete_tables_.insert(c[0]);
        break;
      case Kind::kInlinedDelete:
        delete_rows_.emplace(c[0], key.ToString());
        break;
      case Kind::kInlinedRow:
        Report("format", key.ToString(),
               "an inlined row record of store format 2 in a store of format " +
                   std::to_string(commit::kStoreFormatVersion) + " (moraine migrate batches them)");
        break;
      case Kind::kFileColumnStats:
      case Kind::kTableColumnStats:
      case Kind::kFileVariantStats:
        Report("format", key.ToString(),
               "a column stats record of store format 1 in a store of format " +
                   std::to_string(commit::kStoreFormatVersion) + " (moraine migrate packs them)");
        break;
      case Kind::kFileColumnStatsSet:
      case Kind::kFileVariantStatsSet:
        Needs(key, {Kind::kDataFile, {c[0], c[1]}});
        [[fallthrough]];
      case Kind::kTableColumnStatsSet: {
        std::set<int64_t> columns;
        for (const Message* entry : Entries(*record)) {
          columns.insert(IntField(*entry, "column_id").value_or(0));
        }
        for (int64_t column : columns) Needs(key, {Kind::kColumn, {c[0], uint64_t(column)}});
        CheckEntryOrder(key, *record);
        break;
      }
      case Kind::kTableStats:
        Needs(key, {Kind::kTable, {c[0]}});
        break;
      case Kind::kColumnTag:
        Needs(key, {Kind::kColumn, {c[0], c[1]}});
        break;
      case Kind::kFilePartitionValue:
        Needs(key, {Kind::kDataFile, {c[0], c[1]}});
        break;
      case Kind::kPartitionColumn:
        Needs(key, {Kind::kPartition, {c[0], c[1]}});
        break;
      case Kind::kSortExpression:
        Needs(key, {Kind::kSort, {c[0], c[1]}});
        break;
      case Kind::kMacroImpl:
        Needs(key, {Kind::kMacro, {c[0]}});
        break;
      default:
        break;
    }
  }

  // The key's components must be the record's own identity: what DuckLake's
  // row maps to (row_mapping.h) is exactly where it was found.
  void CheckKeyMatchesRecord(const Key& key, const Message& record) {
    auto found = mappings_.find(key.kind());
    if (found == mappings_.end()) return;
    const catalog::RowMapping& mapping = *found->second;
    if (key.subspace() == Subspace::kHistory) {
      auto end = IntField(record, "end_snapshot");
      const uint64_t key_end = key.components().back();
      if (!end || *end != static_cast<int64_t>(key_end)) {
        Report("history-end", key.ToString(),
               "the key ends the version at snapshot " + std::to_string(key_end) +
                   " but its record's end_snapshot is " + (end ? std::to_string(*end) : "NULL"));
        return;
      }
    }
    try {
      if (mapping.shape() == catalog::RowShape::kEntry) {
        if (mapping.EntryCount(record) == 0) {
          Report("key-record", key.ToString(), "an empty container (its last row was deleted)");
        }
        for (int i = 0; i < mapping.EntryCount(record); ++i) {
          RequireSameKey(key, mapping.KeyOf(mapping.ReadEntry(record, i)));
        }
      } else {
        RequireSameKey(key, mapping.KeyOf(mapping.ReadRecord(record)));
      }
    } catch (const store::Error& error) {
      Report("key-record", key.ToString(),
             std::string("the record has no valid key: ") + error.what());
    }
  }

  void RequireSameKey(const Key& key, const Key& expected) {
    if (key == expected) return;
    Report("key-record", key.ToString(), "the record belongs at " + expected.ToString());
  }

  // Column stats entries are kept in column_id order (row_mapping.h), and
  // a file's or table's column has one entry of its column stats.
  void CheckEntryOrder(const Key& key, const Message& record) {
    const bool unique = key.kind() != Kind::kFileVariantStatsSet;
    std::optional<int64_t> previous;
    for (const Message* entry : Entries(record)) {
      const int64_t column = IntField(*entry, "column_id").value_or(0);
      if (previous && (column < *previous || (unique && column == *previous))) {
        Report("entry-order", key.ToString(),
               "column " + std::to_string(column) + " follows column " + std::to_string(*previous) +
                   (unique ? " (entries in strict column order)" : ""));
      }
      previous = column;
    }
  }

  void CheckNewerFields(const Key& key, const Message& record) {
    for (const NewerField& newer : kFieldsOfV1_1) {
      if (newer.kind != key.kind()) continue;
      std::vector<const Message*> holders = Entries(record);
      holders.push_back(&record);
      for (const Message* holder : holders) {
        const FieldDescriptor* field = holder->GetDescriptor()->FindFieldByName(newer.name);
        if (field && holder->GetReflection()->HasField(*holder, field)) {
          newer_field_key_ = key.ToString() + " (" + newer.name + ")";
        }
      }
    }
  }

  void CollectVersion(const Key& key, std::unique_ptr<Message> record) {
    auto version = std::make_unique<Version>();
    auto components = key.components();
    const bool ended = key.subspace() == Subspace::kHistory;
    version->identity = {key.kind(), {components.begin(), components.end() - (ended ? 1 : 0)}};
    version->key = key.ToString();
    auto begin = IntField(*record, "begin_snapshot");
    auto end = IntField(*record, "end_snapshot");
    if (!begin) Report("version", version->key, "the version has no begin_snapshot");
    version->begin = begin.value_or(0);
    if (ended) {
      version->end = static_cast<int64_t>(components.back());
      if (version->begin >= *version->end) {
        Report("version", version->key,
               "begins at snapshot " + std::to_string(version->begin) + ", not before its end " +
                   std::to_string(*version->end));
      }
    } else if (end) {
      Report("current-ended", version->key,
             "a current version with end_snapshot " + std::to_string(*end) +
                 " (ended versions live in history)");
    }
    version->record = std::move(record);
    lifetimes_[version->identity].push_back(version.get());
    versions_.push_back(std::move(version));
  }

  // An unversioned record needs `target` to exist in some version.
  void Needs(const Key& key, Identity target) {
    needs_.emplace_back(key.ToString(), std::move(target));
  }

  // --- Whole-store checks. ---

  bool SnapshotExists(int64_t id) const { return snapshots_.count(id) > 0; }

  // The first snapshot the store holds in [begin, end) (end nullopt: up to the head).
  std::optional<int64_t> FirstSnapshotIn(int64_t begin, std::optional<int64_t> end) const {
    auto it = snapshots_.lower_bound(begin);
    if (it == snapshots_.end() || (end && it->first >= *end)) return std::nullopt;
    return it->first;
  }

  // The counters the head carries for its snapshot (a commit reads them
  // instead of the record) must be the record's.
  void CheckHeadCounters(int64_t head) {
    const auto found = snapshots_.find(head);
    if (!head_->has_newest_counters() || found == snapshots_.end()) return;
    const auto& carried = head_->newest_counters();
    const auto& record = found->second;
    if (carried.schema_version() == record.schema_version() &&
        carried.next_catalog_id() == record.next_catalog_id() &&
        carried.next_file_id() == record.next_file_id()) {
      return;
    }
    const auto counters = [](int64_t schema_version, int64_t next_catalog_id,
                             int64_t next_file_id) {
      return "(schema version " + std::to_string(schema_version) + ", next catalog id " +
             std::to_string(next_catalog_id) + ", next file id " + std::to_string(next_file_id) +
             ")";
    };
    Report(
        "head-counters", "system/head",
        "the head carries counters of snapshot " + std::to_string(head) + " " +
            counters(carried.schema_version(), carried.next_catalog_id(), carried.next_file_id()) +
            " that its record does not hold " +
            counters(record.schema_version(), record.next_catalog_id(), record.next_file_id()));
  }

  // The bound the head puts on inlined batches' begin snapshots (a commit
  // opens a batch beyond it without a read) must hold for every batch.
  void CheckInlinedBatchesThrough() {
    if (!head_->has_inlined_batches_through() || !newest_batch_) return;
    if (newest_batch_->first <= head_->inlined_batches_through()) return;
    Report("inlined-batch-beyond-bound", newest_batch_->second,
           "an inlined batch begins at snapshot " + std::to_string(newest_batch_->first) +
               ", after the head's bound of " + std::to_string(head_->inlined_batches_through()) +
               " (a commit would overwrite it unread)");
  }

  void CheckSnapshots() {
    const auto head = static_cast<int64_t>(head_->snapshot_id());
    if (!SnapshotExists(head)) {
      Report("snapshot-missing", Key::Current(Kind::kSnapshot, {head_->snapshot_id()}).ToString(),
             "the head names snapshot " + std::to_string(head) + ", which the store does not hold");
    }
    CheckHeadCounters(head);
    CheckInlinedBatchesThrough();
    if (!snapshots_.empty() && snapshots_.rbegin()->first > head) {
      Report("snapshot-beyond-head",
             Key::Current(Kind::kSnapshot, {uint64_t(snapshots_.rbegin()->first)}).ToString(),
             "snapshot " + std::to_string(snapshots_.rbegin()->first) + " is newer than the head " +
                 std::to_string(head));
    }
    const catalog::SnapshotRecord* previous = nullptr;
    for (const auto& [id, record] : snapshots_) {
      const std::string key = Key::Current(Kind::kSnapshot, {uint64_t(id)}).ToString();
      if (record.snapshot_row_absent() || record.changes_row_absent()) {
        Report(
            "snapshot-half", key,
            std::string("the snapshot has no ") +
                (record.snapshot_row_absent() ? "ducklake_snapshot" : "ducklake_snapshot_changes") +
                " row");
      }
      if (previous) {
        auto backwards = [&](const char* what, int64_t before, int64_t now) {
          if (now < before) {
            Report("snapshot-order", key,
                   std::string(what) + " went back from " + std::to_string(before) + " to " +
                       std::to_string(now));
          }
        };
        backwards("schema_version", previous->schema_version(), record.schema_version());
        backwards("next_catalog_id", previous->next_catalog_id(), record.next_catalog_id());
        backwards("next_file_id", previous->next_file_id(), record.next_file_id());
      }
      previous = &record;
    }
    for (const auto& version : versions_) {
      if (version->begin > head || (version->end && *version->end > head)) {
        Report("beyond-head", version->key,
               "the version [" + std::to_string(version->begin) + ", " + End(version->end) +
                   ") reaches past the head " + std::to_string(head));
      }
    }
    CheckDeadIdentitiesAreSeen();
    for (const auto& [key, record] : schema_versions_) {
      auto found = snapshots_.find(record.begin_snapshot());
      if (found != snapshots_.end() && found->second.schema_version() != record.schema_version()) {
        Report("schema-version", key,
               "records schema_version " + std::to_string(record.schema_version()) +
                   " but snapshot " + std::to_string(record.begin_snapshot()) + " has " +
                   std::to_string(found->second.schema_version()));
      }
    }
  }

  // Expiry deletes snapshots without a trace, so a missing snapshot shows only
  // in what it leaves unexplained. DuckLake's expiry deletes every schema,
  // table, view, macro and file whose versions all ended and no remaining
  // snapshot sees (it keeps ended versions of a live table, of its columns
  // and partitions: those may outlive every snapshot that saw them). One that
  // survives was seen by a snapshot that went missing some other way.
  void CheckDeadIdentitiesAreSeen() {
    constexpr Kind kCleaned[] = {Kind::kSchema, Kind::kTable,    Kind::kView,
                                 Kind::kMacro,  Kind::kDataFile, Kind::kDeleteFile};
    for (const auto& [identity, versions] : lifetimes_) {
      if (std::find(std::begin(kCleaned), std::end(kCleaned), identity.first) ==
          std::end(kCleaned)) {
        continue;
      }
      bool seen = false;
      const Version* last = nullptr;
      int64_t first_begin = std::numeric_limits<int64_t>::max();
      for (const Version* version : versions) {
        if (!version->end || FirstSnapshotIn(version->begin, version->end)) seen = true;
        if (!last || version->begin > last->begin) last = version;
        first_begin = std::min(first_begin, version->begin);
      }
      if (seen || !last || last->begin >= *last->end) continue;
      Report("snapshot-missing", last->key,
             IdentityText(identity) + " ended at snapshot " + std::to_string(*last->end) +
                 " and no snapshot the store holds saw it: the snapshots from " +
                 std::to_string(first_begin) + " that did are missing");
    }
  }

  // Versions of one identity never overlap, and an identity that ended never
  // comes back at a snapshot the store holds (a gap no snapshot sees is what
  // expiry leaves when it deletes a middle version), but at a snapshot a
  // revert made (commit/revert/revert_mark.h), which brings ids back on purpose.
  void CheckLifetimes() {
    for (auto& [identity, versions] : lifetimes_) {
      std::sort(versions.begin(), versions.end(),
                [](const Version* a, const Version* b) { return a->begin < b->begin; });
      for (size_t i = 1; i < versions.size(); ++i) {
        const Version& before = *versions[i - 1];
        const Version& after = *versions[i];
        if (!before.end || *before.end > after.begin) {
          Report("live-twice", after.key,
                 IdentityText(identity) + " is live twice: [" + std::to_string(before.begin) +
                     ", " + End(before.end) + ") and [" + std::to_string(after.begin) + ", " +
                     End(after.end) + ")");
        } else if (auto gap = FirstSnapshotIn(*before.end, after.begin);
                   gap && !revert_snapshots_.count(after.begin)) {
          const bool column = identity.first == Kind::kColumn;
          Report(column ? "field-id-reused" : "id-reused", after.key,
                 (column ? "field id " + std::to_string(identity.second[1]) + " of table " +
                               std::to_string(identity.second[0])
                         : IdentityText(identity)) +
                     " ended at snapshot " + std::to_string(*before.end) + " (absent at snapshot " +
                     std::to_string(*gap) + ") and is used again from " +
                     std::to_string(after.begin));
        }
      }
    }
  }

  // At the head, names are unique where DuckLake resolves them: schemas by
  // name, tables and views within their schema, columns among their siblings.
  void CheckLiveNames() {
    std::map<std::tuple<Kind, int64_t, int64_t, std::string>, std::string> seen;
    for (const auto& version : versions_) {
      if (version->end) continue;
      const Message& record = *version->record;
      std::optional<std::tuple<Kind, int64_t, int64_t, std::string>> name;
      switch (version->identity.first) {
        case Kind::kSchema:
          name = {Kind::kSchema, 0, 0,
                  static_cast<const catalog::SchemaRecord&>(record).schema_name()};
          break;
        case Kind::kTable:
        case Kind::kView: {
          // Tables and views share their schema's namespace.
          const bool table = version->identity.first == Kind::kTable;
          name = {Kind::kTable, IntField(record, "schema_id").value_or(-1), 0,
                  table ? static_cast<const catalog::TableRecord&>(record).table_name()
                        : static_cast<const catalog::ViewRecord&>(record).view_name()};
          break;
        }
        case Kind::kColumn: {
          const auto& column = static_cast<const catalog::ColumnRecord&>(record);
          name = {Kind::kColumn, column.table_id(), catalog::ParentOf(column),
                  column.column_name()};
          break;
        }
        default:
          break;
      }
      if (!name) continue;
      auto [at, inserted] = seen.emplace(*name, version->key);
      if (!inserted) {
        Report("name-collision", version->key,
               "is live under the name \"" + std::get<3>(*name) + "\", as is " + at->second);
      }
    }
  }

  // The first snapshot the store holds in [begin, end) at which `target` has
  // no live version, or nullopt when it is live at all of them. A gap that a
  // revert closed (the next version begins at a revert mark's snapshot) is
  // not one: DuckLake writes a file back-dated to the oldest row it holds (a
  // flush), which may span the gap of a table a revert brought back.
  std::optional<int64_t> FirstUncovered(const Identity& target, int64_t begin,
                                        std::optional<int64_t> end) const {
    auto found = lifetimes_.find(target);
    std::optional<int64_t> at = FirstSnapshotIn(begin, end);
    while (at) {
      const Version* covering = nullptr;
      const Version* next = nullptr;
      if (found != lifetimes_.end()) {
        for (const Version* version : found->second) {
          if (version->begin <= *at && (!version->end || *at < *version->end)) covering = version;
          if (version->begin > *at && (!next || version->begin < next->begin)) next = version;
        }
      }
      if (!covering && next && revert_snapshots_.count(next->begin)) {
        at = FirstSnapshotIn(next->begin, end);
        continue;
      }
      if (!covering) return at;
      if (!covering->end) return std::nullopt;
      at = FirstSnapshotIn(*covering->end, end);
    }
    return std::nullopt;
  }

  // `target` must be live wherever `version` is, or with `at_begin_only`,
  // when `version` began (by the recorded lifetimes: that snapshot may be
  // expired while an older one, kept by a protected tag, still reads the
  // target), if any snapshot the store holds sees `version`.
  void CheckReference(const Version& version, const Identity& target, const char* what,
                      bool at_begin_only = false) {
    if (at_begin_only) {
      if (!FirstSnapshotIn(version.begin, version.end) || LiveAt(target, version.begin)) return;
      Report("dangling-reference", version.key,
             std::string("references ") + what + " " + IdentityText(target) +
                 ", which was not live when it began at snapshot " + std::to_string(version.begin));
      return;
    }
    if (auto at = FirstUncovered(target, version.begin, version.end)) {
      Report("dangling-reference", version.key,
             std::string("references ") + what + " " + IdentityText(target) +
                 ", which is not live at snapshot " + std::to_string(*at));
    }
  }

  // Whether a version of `target` the store holds began by `snapshot` and had
  // not ended then.
  bool LiveAt(const Identity& target, int64_t snapshot) const {
    auto found = lifetimes_.find(target);
    if (found == lifetimes_.end()) return false;
    for (const Version* version : found->second) {
      if (version->begin <= snapshot && (!version->end || snapshot < *version->end)) return true;
    }
    return false;
  }

  void CheckReferences() {
    for (const auto& version : versions_) {
      const Message& record = *version->record;
      const auto table = IntField(record, "table_id");
      switch (version->identity.first) {
        case Kind::kTable:
        case Kind::kView:
        case Kind::kMacro:
          if (auto schema = IntField(record, "schema_id")) {
            CheckReference(*version, {Kind::kSchema, {uint64_t(*schema)}}, "schema");
          }
          break;
        case Kind::kColumn:
          CheckReference(*version, {Kind::kTable, {uint64_t(*table)}}, "table");
          if (auto parent = IntField(record, "parent_column")) {
            CheckReference(*version, {Kind::kColumn, {uint64_t(*table), uint64_t(*parent)}},
                           "parent field");
          }
          break;
        case Kind::kDeleteFile:
          // DuckLake ends a data file whose rows are all deleted (an UPDATE
          // of all of them, say) but leaves its delete file live: the data
          // file need only be live when the delete file began.
          if (auto file = IntField(record, "data_file_id")) {
            CheckReference(*version, {Kind::kDataFile, {uint64_t(*table), uint64_t(*file)}},
                           "data file", /*at_begin_only=*/true);
          }
          [[fallthrough]];
        case Kind::kDataFile:
        case Kind::kPartition:
        case Kind::kSort:
          CheckReference(*version, {Kind::kTable, {uint64_t(*table)}}, "table");
          break;
        default:
          break;
      }
    }
    for (const auto& [key, target] : needs_) {
      if (!lifetimes_.count(target)) {
        Report("dangling-reference", key,
               "references " + IdentityText(target) + ", which the store does not hold");
      }
    }
  }

  // Every id in use is below the counter that allocates it.
  void CheckIds() {
    const catalog::SnapshotRecord* head = nullptr;
    if (auto found = snapshots_.find(static_cast<int64_t>(head_->snapshot_id()));
        found != snapshots_.end()) {
      head = &found->second;
    }
    std::map<uint64_t, uint64_t> max_column_id;  // per table
    for (const auto& version : versions_) {
      const auto& [kind, ids] = version->identity;
      if (kind == Kind::kColumn) {
        max_column_id[ids[0]] = std::max(max_column_id[ids[0]], ids[1]);
      }
      const bool catalog_id = kind == Kind::kSchema || kind == Kind::kTable ||
                              kind == Kind::kView || kind == Kind::kMacro;
      const bool file_id = kind == Kind::kDataFile || kind == Kind::kDeleteFile;
      if (!catalog_id && !file_id) continue;
      const auto id = static_cast<int64_t>(catalog_id ? ids[0] : ids[1]);
      const char* counter = catalog_id ? "next_catalog_id" : "next_file_id";
      // At the head, and for catalog ids at the snapshot that began this
      // version. Not so for files: compaction gives the file it writes the
      // begin snapshot of the oldest file it merged, before its id existed.
      const catalog::SnapshotRecord* creator =
          catalog_id && SnapshotExists(version->begin) ? &snapshots_.at(version->begin) : nullptr;
      for (const catalog::SnapshotRecord* at : {head, creator}) {
        if (!at) continue;
        const int64_t next = catalog_id ? at->next_catalog_id() : at->next_file_id();
        if (id >= next) {
          Report("next-id", version->key,
                 "id " + std::to_string(id) + " is not below snapshot " +
                     std::to_string(at->snapshot_id()) + "'s " + counter + " " +
                     std::to_string(next));
          break;
        }
      }
    }
    for (const auto& version : versions_) {
      if (version->identity.first != Kind::kTable || version->end) continue;
      const auto& table = static_cast<const catalog::TableRecord&>(*version->record);
      const uint64_t used = max_column_id[version->identity.second[0]];
      if (table.has_next_column_id() && used >= table.next_column_id()) {
        Report("next-id", version->key,
               "field id " + std::to_string(used) + " is not below the table's next_column_id " +
                   std::to_string(table.next_column_id()));
      }
    }
  }

  // A delta shape resolves over its base (inlined_table_shape.h).
  void CheckShapeDelta(const Key& key, std::span<const uint64_t> c,
                       const store::v1::InlinedTableShapeRecord& shape) {
    const catalog::InlinedTableName name{catalog::InlinedTableName::kData,
                                         static_cast<int64_t>(c[0]), static_cast<int64_t>(c[1])};
    try {
      commit::inlined::ShapeColumns(name, store::FrameValue(Kind::kInlinedTableShape, shape),
                                    [&](const std::string& base) { return snapshot_.Get(base); });
    } catch (const store::Error& error) {
      Report("inlined-shape", key.ToString(), error.what());
    }
  }

  void CheckInlined() {
    for (const auto& [shape, key] : shapes_) {
      // An empty one is what DuckLake itself leaves when it dies between the
      // two autocommit statements that drop a superseded inlined table
      // (DuckLakeTransactionState::DropEmptySupersededInlinedTables: DELETE
      // the registration, then DROP TABLE): nothing it holds is lost.
      if (!registered_inlined_.count(shape) && row_shapes_.count(shape)) {
        Report("inlined-unregistered", key,
               "ducklake_inlined_data_" + std::to_string(shape.first) + "_" +
                   std::to_string(shape.second) +
                   " holds rows but ducklake_inlined_data_tables does not register it");
      }
    }
    for (const auto& shape : registered_inlined_) {
      if (!shapes_.count(shape)) {
        Report("inlined-unregistered",
               Key::Current(Kind::kInlinedDataTable, {shape.first, shape.second}).ToString(),
               "registers an inlined data table that was never created");
      }
    }
    for (const auto& [shape, key] : row_shapes_) {
      if (!shapes_.count(shape)) {
        Report("inlined-orphan", key, "an inlined row of a table that was never created");
      }
    }
    for (const auto& batch : batch_columns_) {
      const auto shape = shape_columns_.find(batch.shape);
      if (shape != shape_columns_.end() && shape->second != batch.columns) {
        Report("inlined-batch", batch.key,
               "holds " + std::to_string(batch.columns) + " columns where its table has " +
                   std::to_string(shape->second));
      }
    }
    for (const auto& [table, key] : delete_rows_) {
      if (!delete_tables_.count(table)) {
        Report("inlined-orphan", key, "an inlined deletion in a table that was never created");
      }
    }
  }

  // Where the head says every inlined batch has its summary, each has, as
  // the batch is now, and no summary is of a batch that is not there.
  void CheckBatchSummaries() {
    if (!head_->inlined_batch_summaries()) return;
    // Bounds an order left out (a tool without the DuckDB shim wrote them,
    // or verifies them) are not compared.
    const auto same_bounds = [](const auto& stored, const auto& actual) {
      return stored.has_null == actual.has_null && stored.has_value == actual.has_value &&
             (!stored.ordered || !actual.ordered ||
              (stored.min == actual.min && stored.max == actual.max));
    };
    for (const auto& [batch, actual] : actual_summaries_) {
      const auto found = stored_summaries_.find(batch);
      if (found == stored_summaries_.end()) {
        Report("inlined-batch-summary", actual.first, "the batch has no summary");
        continue;
      }
      const auto& stored = found->second.second;
      bool same = stored.rows == actual.second.rows && stored.ended == actual.second.ended &&
                  stored.columns.size() == actual.second.columns.size();
      for (size_t column = 0; same && column < stored.columns.size(); ++column) {
        same = same_bounds(stored.columns[column], actual.second.columns[column]);
      }
      if (!same) {
        Report("inlined-batch-summary", actual.first,
               "the batch's summary in " + found->second.first + " is not the batch's");
      }
    }
    for (const auto& [batch, stored] : stored_summaries_) {
      if (!actual_summaries_.count(batch)) {
        Report("inlined-batch-summary", stored.first,
               "summarizes a batch of snapshot " + std::to_string(std::get<2>(batch)) +
                   " that the store does not hold");
      }
    }
  }

  // Where the head says every data file row has its summary, the pages are
  // exactly what the rows and their files' stats make of them; where it says
  // every page has its bounds, so are the bounds (else they are not read).
  void CheckFileSummaries() {
    if (!head_->data_file_summaries()) return;
    std::map<std::string, std::string> expected;
    try {
      expected = commit::files::ExpectedSummaryPages(snapshot_);
    } catch (const store::Error& error) {
      // The rows that do not decode are reported where they are checked.
      Report("data-file-summary", "", std::string("the summaries cannot be made: ") + error.what());
      return;
    }
    const auto is_bounds = [](const std::string& key) {
      return Key::Decode(key).kind() == Kind::kDataFileSummaryBounds;
    };
    if (!head_->data_file_summary_bounds()) {
      std::erase_if(expected, [&](const auto& entry) { return is_bounds(entry.first); });
      std::erase_if(stored_file_pages_, [&](const auto& entry) { return is_bounds(entry.first); });
    }
    for (const auto& [key, value] : stored_file_pages_) {
      const std::string shown = Key::Decode(key).ToString();
      try {
        if (is_bounds(key)) {
          store::v1::DataFileSummaryBounds bounds;
          commit::files::ReadSummaryBounds(value, &bounds);
        } else {
          commit::files::ReadSummaryPage(value);
        }
      } catch (const store::Error& error) {
        Report("data-file-summary", shown, error.what());
        continue;
      }
      const auto found = expected.find(key);
      if (found == expected.end()) {
        Report("data-file-summary", shown, "summarizes data files the store does not hold");
      } else if (found->second != value) {
        Report("data-file-summary", shown, "is not the summary of its data files and their stats");
      }
    }
    for (const auto& [key, value] : expected) {
      if (!stored_file_pages_.count(key)) {
        Report("data-file-summary", Key::Decode(key).ToString(),
               is_bounds(key) ? "the summary page of these data files has no bounds"
                              : "the data files of this page have no summary");
      }
    }
  }

  // A batch's lists agree with each other, its row ids are distinct and
  // non-negative, and every column holds one cell per row.
  void CheckInlinedBatch(const Key& key, const store::v1::InlinedRowBatchRecord& batch) {
    const auto rows = static_cast<size_t>(batch.row_ids_size());
    std::set<int64_t> ids(batch.row_ids().begin(), batch.row_ids().end());
    std::string problem;
    if (rows == 0) {
      problem = "holds no row";
    } else if (batch.end_snapshots_size() != 0 &&
               static_cast<size_t>(batch.end_snapshots_size()) != rows) {
      problem = "has " + std::to_string(rows) + " rows and " +
                std::to_string(batch.end_snapshots_size()) + " end snapshots";
    } else if (ids.size() != rows || *ids.begin() < 0) {
      problem = "holds a row id twice or a negative one";
    } else if (!commit::inlined::InlinedRowBatchView(store::FrameValue(key.kind(), batch),
                                                     static_cast<size_t>(batch.columns_size()))
                    .CellsComplete()) {
      problem = "has a column that does not hold one cell per row";
    }
    if (!problem.empty()) Report("inlined-batch", key.ToString(), "the batch " + problem);
  }

  // An unended tag protects a snapshot the store holds, and holds a name no
  // other unended tag holds.
  void CheckProtectedTags() {
    std::map<std::string, std::string> holders;  // name -> key of its unended tag
    for (const auto& [key, tag] : tags_) {
      if (tag.has_removed_micros()) continue;
      if (auto reason = commit::tags::InvalidTagNameReason(tag.name())) {
        Report("tag-name", key, *reason);
      }
      if (!SnapshotExists(tag.snapshot_id())) {
        Report("tag-snapshot", key,
               "the tag '" + tag.name() + "' protects snapshot " +
                   std::to_string(tag.snapshot_id()) + ", which the store does not hold");
      }
      auto [holder, fresh] = holders.emplace(tag.name(), key);
      if (!fresh) {
        Report("tag-name", key, "the tag '" + tag.name() + "' is also held by " + holder->second);
      }
    }
  }

  void CheckFormatAndCatalogVersion() {
    const std::string format_key = Key::Current(Kind::kFormat, {}).ToString();
    if (!format_) {
      Report("format", format_key, "the store has no format record");
    } else if (format_->format_version() != commit::kStoreFormatVersion) {
      Report("format", format_key,
             "store format " + std::to_string(format_->format_version()) + ", this build reads " +
                 std::to_string(commit::kStoreFormatVersion) + " (moraine migrate upgrades it)");
    }
    std::optional<std::string> recorded;
    if (global_options_) {
      for (const auto& entry : global_options_->entries()) {
        if (entry.key() == "version" && entry.has_value()) recorded = entry.value();
      }
    }
    const std::string option_key = Key::Current(Kind::kOption, {0, 0}).ToString();
    auto version = catalog::ParseCatalogVersion(recorded);
    if (!version) {
      Report("catalog-version", option_key,
             "the catalog version \"" + recorded.value_or("") + "\" is not one this build knows");
      return;
    }
    if (*version != catalog::CatalogVersion::kV1_0) return;
    if (view_column_tag_key_) {
      Report("catalog-version", *view_column_tag_key_,
             "a catalog at version 1.0 holds ducklake_view_column_tag rows (a 1.1 table)");
    }
    if (newer_field_key_) {
      Report("catalog-version", *newer_field_key_,
             "a catalog at version 1.0 holds a column of version 1.1");
    }
  }

  const store::KvSnapshot& snapshot_;
  const VerifyProgress& progress_;
  std::map<Kind, const catalog::RowMapping*> mappings_;
  VerifyReport report_;

  std::optional<catalog::HeadRecord> head_;
  std::optional<store::v1::FormatRecord> format_;
  std::vector<std::pair<std::string, store::v1::ProtectedTagRecord>> tags_;  // by key
  std::set<int64_t> revert_snapshots_;  // the snapshots revert marks name
  std::optional<catalog::OptionRecord> global_options_;
  std::map<int64_t, catalog::SnapshotRecord> snapshots_;
  std::vector<std::unique_ptr<Version>> versions_;
  std::map<Identity, std::vector<const Version*>> lifetimes_;
  std::vector<std::pair<std::string, Identity>> needs_;
  std::vector<std::pair<std::string, catalog::SchemaVersionRecord>> schema_versions_;
  std::set<std::pair<uint64_t, uint64_t>> registered_inlined_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> shapes_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> row_shapes_;
  // User columns per inlined data table, and per batch.
  std::map<std::pair<uint64_t, uint64_t>, int> shape_columns_;
  struct BatchColumns {
    std::pair<uint64_t, uint64_t> shape;
    std::string key;
    int columns = 0;
  };
  std::vector<BatchColumns> batch_columns_;
  // Inlined batches' summaries by (table, schema version, begin snapshot):
  // as stored (page key, summary), and as the batches are (batch key, summary).
  using BatchIdentity = std::tuple<uint64_t, uint64_t, int64_t>;
  std::map<BatchIdentity, std::pair<std::string, commit::inlined::BatchSummary>> stored_summaries_,
      actual_summaries_;
  // Data file summary pages as stored: encoded key, framed value.
  std::map<std::string, std::string> stored_file_pages_;
  // The inlined batch with the newest begin snapshot: (snapshot, key).
  std::optional<std::pair<int64_t, std::string>> newest_batch_;
  std::set<uint64_t> delete_tables_;
  std::map<uint64_t, std::string> delete_rows_;
  std::optional<std::string> view_column_tag_key_;
  std::optional<std::string> newer_field_key_;
};

}  // namespace

VerifyReport VerifyStore(const store::KvSnapshot& snapshot, const VerifyProgress& progress) {
  return Verifier(snapshot, progress).Run();
}

ToolTable ViolationTable(const VerifyReport& report) {
  ToolTable table;
  // "check" is an SQL keyword; the column is named for what it holds.
  table.columns = {{"invariant", ToolType::kVarchar},
                   {"key", ToolType::kVarchar},
                   {"problem", ToolType::kVarchar}};
  for (const Violation& violation : report.violations) {
    table.rows.push_back({violation.check, violation.key, violation.message});
  }
  return table;
}

}  // namespace moraine::tools
