#include "commit/row_transaction.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "catalog/ducklake_tables.h"
#include "catalog/row_mapping.h"
#include "commit/inlined_tables.h"
#include "commit/snapshot_presence.h"
#include "commit/staged_view.h"
#include "commit/store_records.h"
#include "store/error.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

using catalog::InlinedTableName;
using catalog::RowMapping;
using catalog::RowShape;
using store::Kind;

namespace {

constexpr const char* kLostRace =
    "commit conflict: another transaction committed to this catalog since this one began";

TableSpec SpecOf(const catalog::CatalogTable& table) {
  TableSpec spec{std::string(table.name), {}, {}};
  for (const auto& column : table.columns) {
    spec.columns.push_back({std::string(column.name),
                            std::string(catalog::CellTypeName(column.type)), column.nullable});
  }
  for (auto key : table.primary_key) spec.primary_key.emplace_back(key);
  return spec;
}

// The key ranges a scan of `mapping` narrowed by `bounds` must visit: the
// longest run of equalities on leading key columns, then a range on the next.
std::vector<store::KeyRange> RangesFor(const RowMapping& mapping,
                                       const std::vector<ColumnBound>& bounds) {
  std::vector<uint64_t> prefix;
  std::optional<std::pair<uint64_t, uint64_t>> next_range;
  // Options are keyed by a scope derived from two columns: never narrowed.
  if (mapping.shape() != RowShape::kEntry || mapping.kind() != Kind::kOption) {
    for (int column : mapping.key_columns()) {
      std::optional<int64_t> lower, upper;
      for (const auto& bound : bounds) {
        if (bound.column != static_cast<size_t>(column)) continue;
        if (bound.is_null) return {};  // key columns are never NULL
        if (bound.lower) lower = lower ? std::max(*lower, *bound.lower) : *bound.lower;
        if (bound.upper) upper = upper ? std::min(*upper, *bound.upper) : *bound.upper;
      }
      if (lower && upper && *lower > *upper) return {};  // nothing can match
      if (upper && *upper < 0) return {};                // ids are never negative
      if (lower && upper && *lower == *upper) {
        prefix.push_back(static_cast<uint64_t>(*lower));
        continue;
      }
      if (lower || upper) {
        next_range = {static_cast<uint64_t>(std::max<int64_t>(lower.value_or(0), 0)),
                      upper ? static_cast<uint64_t>(*upper) : UINT64_MAX};
      }
      break;
    }
  }
  // end_snapshot IS NULL: only live versions, which never sit in history.
  const bool live_only = std::any_of(bounds.begin(), bounds.end(), [&](const ColumnBound& bound) {
    return bound.is_null && static_cast<int>(bound.column) == mapping.end_column();
  });
  std::vector<store::KeyRange> ranges;
  for (store::Subspace subspace : mapping.Subspaces()) {
    if (live_only && subspace == store::Subspace::kHistory) continue;
    if (!next_range) {
      ranges.push_back(store::PrefixRange(subspace, mapping.kind(), prefix));
      continue;
    }
    auto low = prefix, high = prefix;
    low.push_back(next_range->first);
    high.push_back(next_range->second);
    ranges.push_back({store::PrefixRange(subspace, mapping.kind(), low).begin,
                      store::PrefixRange(subspace, mapping.kind(), high).end});
  }
  return ranges;
}

class StoreRowTransaction final : public RowTransaction {
 public:
  StoreRowTransaction(std::shared_ptr<store::KvStore> store, catalog::CatalogVersion shape)
      : store_(std::move(store)), shape_(shape), view_(store_->GetSnapshot()) {
    head_value_ = view_.Get(HeadKey());
    if (head_value_) store::UnframeValue(Kind::kHead, *head_value_, &head_);
    next_ordinal_ = (head_.batch_count() + 1) << 32;
  }

  std::string SchemaName() override {
    // Asked at every DuckDB schema lookup; it changes only through CreateSchema.
    if (!schema_name_) {
      auto value = view_.Get(NamespaceKey());
      schema_name_ = value ? DecodeNamespace(*value) : std::string(kDefaultSchemaName);
    }
    return *schema_name_;
  }

  void CreateSchema(std::string_view name) override {
    RequireOpen();
    const std::string current = SchemaName();
    const bool chosen =
        FixedTablesExist() || !created_fixed_.empty() || view_.Get(NamespaceKey()).has_value();
    if (name == current) {
      throw store::ConstraintError("schema \"" + std::string(name) + "\" already exists");
    }
    if (chosen) {
      throw store::InvalidArgumentError(
          "a moraine store holds exactly one DuckLake catalog; this one is served under the "
          "schema \"" +
          current + "\", so the schema \"" + std::string(name) +
          "\" cannot be created (use a separate store for another catalog)");
    }
    view_.Put(NamespaceKey(), EncodeNamespace(name));
    schema_name_ = std::string(name);
  }

  std::optional<TableSpec> FindTable(std::string_view name) override {
    if (const RowMapping* mapping = catalog::FindRowMapping(shape_, name)) {
      if (!FixedTablesExist() && !created_fixed_.count(std::string(name))) return std::nullopt;
      return SpecOf(mapping->table());
    }
    if (auto inlined = catalog::ParseInlinedTableName(name)) {
      auto existence = view_.Get(inlined::ExistenceKey(*inlined).Encode());
      if (!existence) return std::nullopt;
      return inlined::SpecOf(*inlined, *existence);
    }
    return std::nullopt;
  }

  std::vector<std::string> TableNames() override {
    std::vector<std::string> names;
    for (const RowMapping& mapping : catalog::RowMappings(shape_)) {
      const std::string name(mapping.table().name);
      if (FixedTablesExist() || created_fixed_.count(name)) names.push_back(name);
    }
    for (Kind kind : {Kind::kInlinedTableShape, Kind::kInlinedDeleteTable}) {
      view_.Scan(store::PrefixRange(store::Subspace::kInlineData, kind),
                 [&](std::string_view key, std::string_view) {
                   const store::Key decoded = store::Key::Decode(key);
                   const auto table = static_cast<int64_t>(decoded.component(0));
                   names.push_back(kind == Kind::kInlinedTableShape
                                       ? catalog::InlinedDataTableName(
                                             table, static_cast<int64_t>(decoded.component(1)))
                                       : catalog::InlinedDeleteTableName(table));
                 });
    }
    return names;
  }

  void CreateTable(const TableSpec& spec) override {
    RequireOpen();
    if (const RowMapping* mapping = catalog::FindRowMapping(shape_, spec.name)) {
      if (FixedTablesExist() || created_fixed_.count(spec.name)) {
        throw store::ConstraintError("table " + spec.name + " already exists");
      }
      const TableSpec expected = SpecOf(mapping->table());
      if (!SameColumns(spec, expected)) {
        throw store::InvalidArgumentError("table " + spec.name +
                                          " does not have the shape of DuckLake catalog version " +
                                          std::string(catalog::CatalogVersionName(shape_)));
      }
      created_fixed_.insert(spec.name);
      return;
    }
    auto inlined = catalog::ParseInlinedTableName(spec.name);
    if (!inlined) {
      throw store::InvalidArgumentError(
          "moraine serves DuckLake's catalog tables only; cannot "
          "create table " +
          spec.name);
    }
    const std::string key = inlined::ExistenceKey(*inlined).Encode();
    if (view_.Get(key)) throw store::ConstraintError("table " + spec.name + " already exists");
    view_.Put(key, inlined::ExistenceValue(*inlined, spec));
  }

  std::optional<SnapshotCounters> LatestSnapshot() override {
    // The head is rewritten by every commit to the newest snapshot id; rows
    // this transaction staged may name a newer one.
    int64_t newest = head_value_ ? static_cast<int64_t>(head_.snapshot_id()) : -1;
    if (max_inserted_snapshot_) newest = std::max(newest, *max_inserted_snapshot_);
    if (newest < 0) return std::nullopt;
    auto found = SnapshotAt(newest);
    if (!found) {
      throw store::CorruptionError("the head of the moraine store names snapshot " +
                                   std::to_string(newest) + ", which the store does not hold");
    }
    return found;
  }

  void DropTable(std::string_view name) override {
    RequireOpen();
    auto inlined = catalog::ParseInlinedTableName(name);
    if (!inlined) {
      throw store::InvalidArgumentError("cannot drop " + std::string(name) +
                                        ": DuckLake's catalog tables are permanent");
    }
    const std::string key = inlined::ExistenceKey(*inlined).Encode();
    if (!view_.Get(key)) {
      throw store::NotFoundError("table " + std::string(name) + " does not exist");
    }
    std::vector<std::string> rows;
    view_.Scan(inlined::RowRange(*inlined),
               [&](std::string_view row_key, std::string_view) { rows.emplace_back(row_key); });
    for (const auto& row_key : rows) view_.Delete(row_key);
    view_.Delete(key);
  }

  void ScanProjected(std::string_view table, const ScanRequest& request,
                     const std::function<void(RowHandle, const Row&)>& visit) override {
    RequireOpen();
    FlushContainers();
    if (const RowMapping* mapping = FixedMapping(table)) {
      const ScanPlan plan = PlanFor(*mapping, request);
      const auto ranges = RangesFor(*mapping, request.bounds);
      const std::string_view name = mapping->table().name;
      if (!mapping->has_write_ordinal()) {  // key order is write order
        ScanRanges(*mapping, ranges, [&](std::string_view key, std::string_view value) {
          ReadRows(*mapping, key, value, plan, [&](Row row, uint64_t ordinal) {
            Emit(name, key, std::move(row), ordinal, plan, visit);
          });
        });
        return;
      }
      // Rows in the order they were written, as a DuckDB table returns them:
      // held until the scan is complete (a visitor may also stage writes).
      std::vector<VisitedRow> rows;
      ScanRanges(*mapping, ranges, [&](std::string_view key, std::string_view value) {
        ReadRows(*mapping, key, value, plan, [&](Row row, uint64_t ordinal) {
          rows.push_back({ordinal, std::string(key), std::move(row)});
        });
      });
      const auto by_ordinal = [](const VisitedRow& a, const VisitedRow& b) {
        return a.ordinal < b.ordinal;
      };
      if (!std::is_sorted(rows.begin(), rows.end(), by_ordinal)) {
        std::stable_sort(rows.begin(), rows.end(), by_ordinal);
      }
      for (auto& row : rows) Emit(name, row.key, std::move(row.row), row.ordinal, plan, visit);
      return;
    }
    const InlinedTableName name = RequireInlined(table);
    const ScanPlan plan{{}, false, request.handles};
    view_.Scan(inlined::RowRange(name), [&](std::string_view key, std::string_view value) {
      Emit(table, key, inlined::ReadRow(name, value), 0, plan, visit);
    });
  }

  void Insert(std::string_view table, const Row& row) override {
    RequireOpen();
    if (const RowMapping* mapping = FixedMapping(table)) {
      RequireUnreservedOption(table, row);
      InsertFixed(*mapping, row);
      return;
    }
    const InlinedTableName name = RequireInlined(table);
    const std::string key = inlined::RowKey(name, row).Encode();
    if (view_.Get(key)) throw DuplicateRow(table);
    view_.Put(key, inlined::RowValue(name, row, InlinedColumnCount(name)));
  }

  void Update(std::string_view table, RowHandle handle, const Row& row) override {
    RequireOpen();
    Target& target = RequireTarget(table, handle);
    if (const RowMapping* mapping = FixedMapping(table)) {
      RequireUnreservedOption(table, target.row);
      RequireUnreservedOption(table, row);
      UpdateFixed(*mapping, target, row);
    } else {
      const InlinedTableName name = RequireInlined(table);
      const std::string key = inlined::RowKey(name, row).Encode();
      if (key != target.key) {
        if (view_.Get(key)) throw DuplicateRow(table);
        view_.Delete(target.key);
      }
      view_.Put(key, inlined::RowValue(name, row, InlinedColumnCount(name)));
      target.key = key;
    }
    target.row = row;
  }

  Row GetRow(RowHandle handle) override {
    if (handle >= targets_.size() || targets_[handle].removed) {
      throw store::NotFoundError("no row " + std::to_string(handle) + " in this transaction");
    }
    return targets_[handle].row;
  }

  void Delete(std::string_view table, RowHandle handle) override {
    RequireOpen();
    Target& target = RequireTarget(table, handle);
    if (const RowMapping* mapping = FixedMapping(table)) {
      RequireUnreservedOption(table, target.row);
      RemoveFixed(*mapping, target);
    } else {
      view_.Delete(target.key);
    }
    target.removed = true;
  }

  void Commit() override {
    RequireOpen();
    finished_ = true;
    FlushContainers();
    if (!view_.HasWrites() && created_fixed_.empty()) return;
    if (store_->read_only()) {
      throw store::ReadOnlyError("catalog '" + store_->location() + "' is attached read-only");
    }
    store::WriteBatch batch;
    view_.AppendTo(&batch);
    int64_t head_snapshot = head_value_ ? static_cast<int64_t>(head_.snapshot_id()) : -1;
    if (max_inserted_snapshot_) head_snapshot = std::max(head_snapshot, *max_inserted_snapshot_);
    if (!head_value_) {
      if (head_snapshot < 0) {
        throw store::InvalidArgumentError(
            "initializing a DuckLake catalog must insert its first snapshot");
      }
      batch.Put(FormatKey(), EncodeFormat());
    }
    batch.Put(HeadKey(), EncodeHead(head_snapshot, head_.batch_count() + 1));
    if (!store_->WriteIfHeadUnchanged(HeadKey(), head_value_, batch)) {
      throw store::ConflictError(kLostRace);
    }
  }

  void Rollback() override { finished_ = true; }

  std::optional<std::string> RecordedCatalogVersion() override {
    const auto* options = Container(OptionsMapping(), GlobalOptionsKey());
    if (!options) return std::nullopt;
    for (const auto& entry : static_cast<const store::v1::OptionRecord&>(*options).entries()) {
      if (entry.key() == kVersionOption) return entry.value();
    }
    return std::nullopt;
  }

  void RecordCatalogVersion(std::string_view label) override {
    RequireOpen();
    if (!FixedTablesExist()) {
      throw store::InvalidArgumentError(
          "the store holds no DuckLake catalog yet, so it has no catalog version to record");
    }
    auto* record = Container(OptionsMapping(), GlobalOptionsKey());
    if (!record) {
      containers_[GlobalOptionsKey()].record = OptionsMapping().NewRecord();
      record = containers_[GlobalOptionsKey()].record.get();
    }
    auto& options = static_cast<store::v1::OptionRecord&>(*record);
    store::v1::OptionEntry* version = nullptr;
    for (auto& entry : *options.mutable_entries()) {
      if (entry.key() == kVersionOption) version = &entry;
    }
    if (!version) {
      version = options.add_entries();
      version->set_key(std::string(kVersionOption));
      version->set_write_ordinal(NextWriteOrdinal());
    }
    version->set_value(std::string(label));
    containers_[GlobalOptionsKey()].dirty = true;
  }

 private:
  struct Target {
    std::string table;
    std::string key;
    Row row;
    uint64_t ordinal = 0;  // the row's write ordinal, kept by an update
    bool removed = false;
  };

  // A row a scan in write order holds until the scan is complete.
  struct VisitedRow {
    uint64_t ordinal;
    std::string key;
    Row row;
  };

  using RecordVisitor = std::function<void(std::string_view key, std::string_view value)>;
  using RowSink = std::function<void(Row row, uint64_t ordinal)>;

  // The ordinal of this transaction's next row write: its commit (the batch
  // it lands as, if it lands) in the high half, its place in the low half.
  uint64_t NextWriteOrdinal() { return next_ordinal_++; }

  static constexpr std::string_view kVersionOption = "version";

  struct OpenContainer {
    const RowMapping* mapping = nullptr;
    std::unique_ptr<google::protobuf::Message> record;  // null: the key is absent
    bool dirty = false;                                 // changed since view_ last held it
  };

  // The container at `key`, opened (decoded from view_) on first use; null
  // while the key is absent. Changes to it are marked dirty by the caller.
  google::protobuf::Message* Container(const RowMapping& mapping, const std::string& key) {
    auto found = containers_.find(key);
    if (found == containers_.end()) {
      found = containers_.emplace(key, OpenContainer{&mapping, ReadStaged(mapping, key)}).first;
    }
    return found->second.record.get();
  }

  // Frames every changed container into view_; one left without entries
  // is deleted.
  void FlushContainers() {
    for (auto& [key, open] : containers_) {
      if (!open.dirty) continue;
      open.dirty = false;
      if (!open.record || open.mapping->EntryCount(*open.record) == 0) {
        view_.Delete(key);
      } else {
        Stage(*open.mapping, key, *open.record);
      }
    }
  }

  const RowMapping& OptionsMapping() const {
    return *catalog::FindRowMapping(shape_, "ducklake_metadata");
  }
  static std::string GlobalOptionsKey() {
    return store::Key(store::Subspace::kCurrent, Kind::kOption,
                      {static_cast<uint64_t>(store::OptionScope::kGlobal), 0})
        .Encode();
  }

  static bool IsVersionOption(std::string_view table, const Row& row) {
    return table == "ducklake_metadata" && row.size() >= 3 &&
           row[0] == Cell(std::string(kVersionOption)) && catalog::IsNull(row[2]);
  }

  // The global `version` option names the catalog shape moraine serves (the
  // DuckLake catalog version, RFC 0012): DuckLake writes it once when it
  // initializes the catalog; afterwards only a deliberate raise may move it.
  void RequireUnreservedOption(std::string_view table, const Row& row) const {
    if (!FixedTablesExist()) return;
    if (IsVersionOption(table, row)) {
      throw store::ConstraintError(
          "the catalog version is reserved: it is set when the catalog is created and moved "
          "only by moraine_raise_catalog_version");
    }
  }

  // A store DuckLake has initialized (or the verb path created) has a head.
  bool FixedTablesExist() const { return head_value_.has_value(); }

  void RequireOpen() const {
    if (finished_) throw store::InvalidArgumentError("the transaction has already finished");
  }

  const RowMapping* FixedMapping(std::string_view table) const {
    const RowMapping* mapping = catalog::FindRowMapping(shape_, table);
    if (mapping && !FixedTablesExist() && !created_fixed_.count(std::string(table))) {
      throw store::NotFoundError("table " + std::string(table) + " does not exist");
    }
    return mapping;
  }

  InlinedTableName RequireInlined(std::string_view table) {
    auto name = catalog::ParseInlinedTableName(table);
    if (!name || !view_.Get(inlined::ExistenceKey(*name).Encode())) {
      throw store::NotFoundError("table " + std::string(table) + " does not exist");
    }
    return *name;
  }

  size_t InlinedColumnCount(const InlinedTableName& name) {
    return inlined::SpecOf(name, *view_.Get(inlined::ExistenceKey(name).Encode())).columns.size();
  }

  Target& RequireTarget(std::string_view table, RowHandle handle) {
    if (handle >= targets_.size() || targets_[handle].table != table || targets_[handle].removed) {
      throw store::NotFoundError("no row " + std::to_string(handle) + " of " + std::string(table) +
                                 " in this transaction");
    }
    return targets_[handle];
  }

  static store::ConstraintError DuplicateRow(std::string_view table) {
    return store::ConstraintError("duplicate row identity in " + std::string(table));
  }

  static bool SameColumns(const TableSpec& a, const TableSpec& b) {
    if (a.columns.size() != b.columns.size()) return false;
    for (size_t i = 0; i < a.columns.size(); ++i) {
      if (a.columns[i].name != b.columns[i].name || a.columns[i].type != b.columns[i].type) {
        return false;
      }
    }
    return true;
  }

  // How a scan reads each record: which columns it decodes, whether from
  // the key alone, and whether it hands out row handles.
  struct ScanPlan {
    std::vector<bool> wanted;  // one flag per column; empty: every column
    bool key_only = false;
    bool handles = true;
    // Ordered entries: the inclusive range of entry keys the bounds allow
    // (column_id of column stats: the narrowing a key component gave).
    int64_t entry_low = INT64_MIN;
    int64_t entry_high = INT64_MAX;
  };

  static ScanPlan PlanFor(const RowMapping& mapping, const ScanRequest& request) {
    ScanPlan plan{{}, false, request.handles};
    for (const ColumnBound& bound : request.bounds) {
      if (!mapping.ordered_entries() ||
          bound.column != static_cast<size_t>(mapping.entry_key_column())) {
        continue;
      }
      if (bound.is_null) {  // an entry key is never NULL
        plan.entry_low = INT64_MAX;
        plan.entry_high = INT64_MIN;
      }
      if (bound.lower) plan.entry_low = std::max(plan.entry_low, *bound.lower);
      if (bound.upper) plan.entry_high = std::min(plan.entry_high, *bound.upper);
    }
    // A handle's row is what UPDATE builds its new row from: always whole.
    if (request.handles || !request.columns) return plan;
    plan.wanted.assign(mapping.table().columns.size(), false);
    for (size_t column : *request.columns) {
      if (column < plan.wanted.size()) plan.wanted[column] = true;
    }
    plan.key_only = mapping.KeyCovers(plan.wanted);
    return plan;
  }

  void Emit(std::string_view table, std::string_view key, Row row, uint64_t ordinal,
            const ScanPlan& plan, const std::function<void(RowHandle, const Row&)>& visit) {
    if (!plan.handles) {
      visit(kNoRowHandle, row);
      return;
    }
    const RowHandle handle = targets_.size();
    targets_.push_back({std::string(table), std::string(key), std::move(row), ordinal});
    visit(handle, targets_.back().row);
  }

  // Visits the records of `ranges`; the two ranges of a versioned table as ScanVersions does.
  void ScanRanges(const RowMapping& mapping, const std::vector<store::KeyRange>& ranges,
                  const RecordVisitor& read) {
    if (mapping.versioned() && ranges.size() == 2) {
      ScanVersions(ranges[0], ranges[1], read);
      return;
    }
    for (const auto& range : ranges) view_.Scan(range, read);
  }

  // The rows one record holds (none, one, or a container's entries), with their ordinals.
  void ReadRows(const RowMapping& mapping, std::string_view key, std::string_view value,
                const ScanPlan& plan, const RowSink& sink) {
    const std::string_view table = mapping.table().name;
    if (plan.key_only) {
      const bool holds_row =
          mapping.shape() == RowShape::kRecord ||
          SnapshotRecordHoldsRow(value, mapping.shape() == RowShape::kChangesRow);
      if (!holds_row) return;
      const uint64_t ordinal =
          mapping.has_write_ordinal()
              ? mapping.WriteOrdinalOfPayload(store::UnframePayload(mapping.kind(), value))
              : 0;
      sink(mapping.ReadKey(key, plan.wanted), ordinal);
      return;
    }
    auto record = mapping.NewRecord();
    store::UnframeValue(mapping.kind(), value, record.get());
    const auto read = [&] {
      return plan.wanted.empty() ? mapping.ReadRecord(*record)
                                 : mapping.ReadRecord(*record, plan.wanted);
    };
    switch (mapping.shape()) {
      case RowShape::kRecord:
        sink(read(), mapping.WriteOrdinal(*record));
        return;
      case RowShape::kSnapshotRow:
      case RowShape::kChangesRow:
        if (!SnapshotRowAbsent(mapping, *record)) sink(read(), 0);
        return;
      case RowShape::kEntry: {
        // Entries are read up front: a visitor may stage writes to this key.
        std::vector<Row> rows;
        std::vector<uint64_t> ordinals;
        for (int i = 0; i < mapping.EntryCount(*record); ++i) {
          if (mapping.ordered_entries()) {
            const int64_t entry_key = mapping.EntryKey(*record, i);
            if (entry_key < plan.entry_low || entry_key > plan.entry_high) continue;
          }
          ordinals.push_back(mapping.EntryWriteOrdinal(*record, i));
          rows.push_back(mapping.ReadEntry(*record, i));
          // A store reports the version whose shape it is served ("1.1-dev1"
          // reads "1.1"), so DuckLake never asks to migrate a label.
          if (IsVersionOption(table, rows.back()) && !catalog::IsNull(rows.back()[1])) {
            rows.back()[1] =
                catalog::ServedCatalogVersionLabel(std::get<std::string>(rows.back()[1]));
          }
        }
        for (size_t i = 0; i < rows.size(); ++i) sink(std::move(rows[i]), ordinals[i]);
        return;
      }
    }
  }

  // Visits the live and ended versions of a versioned table merged in
  // identity order, an identity's ended versions (oldest end first) before its
  // live one: the order rows without write ordinals keep (scans of tables
  // with ordinals sort by them afterwards, stably).
  // A history key is its current key with end_snapshot appended (fixed-width
  // big-endian components), so identities compare as byte strings.
  void ScanVersions(const store::KeyRange& current, const store::KeyRange& history,
                    const RecordVisitor& read) {
    std::vector<std::pair<std::string, std::string>> ended;
    view_.Scan(history, [&](std::string_view key, std::string_view value) {
      ended.emplace_back(key, value);
    });
    size_t next = 0;
    view_.Scan(current, [&](std::string_view key, std::string_view value) {
      const std::string_view identity = key.substr(2);
      while (next < ended.size() &&
             std::string_view(ended[next].first).substr(2, identity.size()) <= identity) {
        read(ended[next].first, ended[next].second);
        ++next;
      }
      read(key, value);
    });
    for (; next < ended.size(); ++next) read(ended[next].first, ended[next].second);
  }

  std::unique_ptr<google::protobuf::Message> ReadStaged(const RowMapping& mapping,
                                                        const std::string& key) {
    auto value = view_.Get(key);
    if (!value) return nullptr;
    auto record = mapping.NewRecord();
    store::UnframeValue(mapping.kind(), *value, record.get());
    return record;
  }

  void Stage(const RowMapping& mapping, const std::string& key,
             const google::protobuf::Message& record) {
    view_.Put(key, store::FrameValue(mapping.kind(), record));
  }

  static bool SnapshotRowAbsent(const RowMapping& mapping,
                                const google::protobuf::Message& record) {
    const auto& snapshot = static_cast<const store::v1::SnapshotRecord&>(record);
    return mapping.shape() == RowShape::kSnapshotRow ? snapshot.snapshot_row_absent()
                                                     : snapshot.changes_row_absent();
  }

  static void SetSnapshotRowAbsent(RowShape shape, store::v1::SnapshotRecord* snapshot,
                                   bool absent) {
    if (shape == RowShape::kSnapshotRow) {
      snapshot->set_snapshot_row_absent(absent);
    } else {
      snapshot->set_changes_row_absent(absent);
    }
  }

  // `ordinal`: the write ordinal the row keeps (an update moving it); a new
  // one when absent.
  void InsertFixed(const RowMapping& mapping, const Row& row,
                   std::optional<uint64_t> ordinal = std::nullopt) {
    const std::string key = mapping.KeyOf(row).Encode();
    if (mapping.shape() == RowShape::kEntry) Container(mapping, key);
    auto existing = mapping.shape() == RowShape::kEntry ? nullptr : ReadStaged(mapping, key);
    const auto ordinal_of_row = [&] { return ordinal ? *ordinal : NextWriteOrdinal(); };
    switch (mapping.shape()) {
      case RowShape::kRecord: {
        if (existing) throw DuplicateRow(mapping.table().name);
        auto record = mapping.NewRecord();
        mapping.WriteRecord(row, record.get());
        if (mapping.has_write_ordinal()) mapping.SetWriteOrdinal(record.get(), ordinal_of_row());
        Stage(mapping, key, *record);
        return;
      }
      case RowShape::kSnapshotRow:
      case RowShape::kChangesRow: {
        const int64_t snapshot_id = std::get<int64_t>(row[0]);
        if (existing && !SnapshotRowAbsent(mapping, *existing)) {
          // Two writers took the same next snapshot id: a lost race DuckLake retries.
          if (mapping.shape() == RowShape::kSnapshotRow) {
            throw store::ConflictError("commit conflict: snapshot " + std::to_string(snapshot_id) +
                                       " already exists");
          }
          throw DuplicateRow(mapping.table().name);
        }
        const bool first_half = existing == nullptr;
        auto record = first_half ? mapping.NewRecord() : std::move(existing);
        auto* snapshot = static_cast<store::v1::SnapshotRecord*>(record.get());
        if (first_half) {
          // The other half of the merged record is absent until inserted.
          SetSnapshotRowAbsent(mapping.shape() == RowShape::kSnapshotRow ? RowShape::kChangesRow
                                                                         : RowShape::kSnapshotRow,
                               snapshot, true);
        }
        mapping.WriteRecord(row, record.get());
        SetSnapshotRowAbsent(mapping.shape(), snapshot, false);
        Stage(mapping, key, *record);
        if (mapping.shape() == RowShape::kSnapshotRow) {
          max_inserted_snapshot_ =
              std::max(max_inserted_snapshot_.value_or(snapshot_id), snapshot_id);
        }
        return;
      }
      case RowShape::kEntry:
        break;
    }
    OpenContainer& open = containers_.at(key);
    if (!open.record || mapping.EntryCount(*open.record) == 0) {
      open.record = mapping.NewRecord();
      mapping.WriteContainer(row, open.record.get());
    }
    mapping.InsertEntry(open.record.get(), row, mapping.has_write_ordinal() ? ordinal_of_row() : 0);
    open.dirty = true;
  }

  void RemoveFixed(const RowMapping& mapping, const Target& target) {
    switch (mapping.shape()) {
      case RowShape::kRecord:
        view_.Delete(target.key);
        return;
      case RowShape::kSnapshotRow:
      case RowShape::kChangesRow: {
        auto record = ReadStaged(mapping, target.key);
        if (!record) return;
        auto* snapshot = static_cast<store::v1::SnapshotRecord*>(record.get());
        SetSnapshotRowAbsent(mapping.shape(), snapshot, true);
        if (snapshot->snapshot_row_absent() && snapshot->changes_row_absent()) {
          view_.Delete(target.key);
        } else {
          Stage(mapping, target.key, *record);
        }
        return;
      }
      case RowShape::kEntry: {
        const int index = FindEntry(mapping, target);
        // An emptied container is deleted when flushed.
        mapping.RemoveEntry(containers_.at(target.key).record.get(), index);
        containers_.at(target.key).dirty = true;
        return;
      }
    }
  }

  // The index of the target's entry in its (open) container. Throws
  // store::NotFoundError if it is gone.
  int FindEntry(const RowMapping& mapping, const Target& target) {
    const auto* container = Container(mapping, target.key);
    if (container) {
      const auto [first, last] = mapping.EntryRange(*container, target.row);
      for (int i = first; i < last; ++i) {
        if (mapping.ReadEntry(*container, i) == target.row) return i;
      }
    }
    throw store::NotFoundError("the row of " + target.table + " is gone");
  }

  void UpdateFixed(const RowMapping& mapping, Target& target, const Row& row) {
    const std::string key = mapping.KeyOf(row).Encode();
    switch (mapping.shape()) {
      case RowShape::kRecord: {
        // Fields the served shape does not map (a 1.1 column in a session
        // attached at 1.0) keep their values.
        auto record = ReadStaged(mapping, target.key);
        if (!record) {
          record = mapping.NewRecord();
          mapping.SetWriteOrdinal(record.get(), target.ordinal);
        }
        // Setting end_snapshot on a live version moves it to history: its key
        // changes, so the current key is deleted in the same batch.
        if (key != target.key) {
          if (ReadStaged(mapping, key)) throw DuplicateRow(mapping.table().name);
          view_.Delete(target.key);
        }
        mapping.WriteRecord(row, record.get());
        Stage(mapping, key, *record);
        break;
      }
      case RowShape::kSnapshotRow:
      case RowShape::kChangesRow: {
        if (key != target.key) {
          throw store::InvalidArgumentError("a snapshot's id cannot change");
        }
        auto record = ReadStaged(mapping, key);
        if (!record) throw store::NotFoundError("the row of " + target.table + " is gone");
        mapping.WriteRecord(row, record.get());
        Stage(mapping, key, *record);
        break;
      }
      case RowShape::kEntry: {
        // An ordered entry that keeps its place is rewritten in place, so the
        // fields the served shape does not map keep their values (as records
        // do) and a container of C entries is not reordered per row.
        if (key == target.key && mapping.ordered_entries()) {
          const int index = FindEntry(mapping, target);
          const auto [first, last] = mapping.EntryRange(*Container(mapping, key), row);
          if (index >= first && index < last) {
            auto* container = containers_.at(key).record.get();
            const auto* entries = container->GetDescriptor()->FindFieldByName("entries");
            mapping.WriteEntry(
                row, container->GetReflection()->MutableRepeatedMessage(container, entries, index));
            containers_.at(key).dirty = true;
            break;
          }
        }
        RemoveFixed(mapping, target);
        InsertFixed(mapping, row, target.ordinal);
        break;
      }
    }
    target.key = key;
  }

  std::shared_ptr<store::KvStore> store_;
  catalog::CatalogVersion shape_;
  StagedView view_;
  std::optional<std::string> head_value_;  // nullopt: DuckLake has not initialized the store
  store::v1::HeadRecord head_;
  std::set<std::string> created_fixed_;  // fixed tables created while initializing
  std::vector<Target> targets_;          // indexed by RowHandle
  std::optional<int64_t> max_inserted_snapshot_;
  std::optional<std::string> schema_name_;  // cached SchemaName()
  // kEntry containers this transaction touched, by key: decoded once and
  // framed into view_ only when a scan or the commit reads them. DuckLake
  // writes a wide table's column stats one row at a time, and re-framing a
  // container of C entries for each row would cost O(C^2).
  std::map<std::string, OpenContainer> containers_;
  uint64_t next_ordinal_ = 0;  // NextWriteOrdinal()
  bool finished_ = false;
};

}  // namespace

std::unique_ptr<RowTransaction> BeginRowTransaction(std::shared_ptr<store::KvStore> store,
                                                    catalog::CatalogVersion shape) {
  return std::make_unique<StoreRowTransaction>(std::move(store), shape);
}

}  // namespace moraine::commit
