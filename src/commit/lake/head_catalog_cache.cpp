#include "commit/lake/head_catalog_cache.h"

#include <algorithm>

#include "commit/lake/store_records.h"
#include "store/error.h"
#include "store/key.h"

namespace moraine::commit {
namespace {

using store::Kind;

// What a batch's key says about the catalog read at the head before it.
enum class Touch {
  kNothing,
  kTable,       // the table whose id is the key's first component
  kObject,      // tags of the object of that id: a table's, a view's or a schema's
  kViews,       // views, view tags and macros
  kEverything,  // read it all again
};

Touch TouchOf(Kind kind) {
  switch (kind) {
    // Keyed by table id first: everything ReadLakeCatalog reads per table.
    case Kind::kTable:
    case Kind::kColumn:
    case Kind::kColumnTag:
    case Kind::kInlinedDataTable:
    case Kind::kPartition:
    case Kind::kPartitionColumn:
    case Kind::kSort:
    case Kind::kSortExpression:
      return Touch::kTable;
    case Kind::kTag:
      return Touch::kObject;
    case Kind::kView:
    case Kind::kViewColumnTag:
    case Kind::kMacro:
    case Kind::kMacroImpl:
    case Kind::kMacroParameter:
      return Touch::kViews;
    // Table paths resolve against their schema's; a schema change is rare.
    case Kind::kSchema:
      return Touch::kEverything;
    default:
      return Touch::kNothing;
  }
}

// Whether `catalog` lists inlined data table (`table_id`, `schema_version`)
// or does not hold the table at all (nothing to re-read then).
bool Lists(const LakeCatalog& catalog, int64_t table_id, int64_t schema_version) {
  const auto table = std::lower_bound(
      catalog.tables.begin(), catalog.tables.end(), table_id,
      [](const std::shared_ptr<const LakeTable>& entry, int64_t id) { return entry->id < id; });
  if (table == catalog.tables.end() || (*table)->id != table_id) return true;
  const auto& inlined = (*table)->inlined_data_tables;
  return std::any_of(inlined.rbegin(), inlined.rend(), [&](const LakeInlinedTable& entry) {
    return entry.schema_version == schema_version;
  });
}

}  // namespace

HeadCatalogCache::Served HeadCatalogCache::AtHead(RowTransaction& rows, int64_t head_snapshot_id,
                                                  const std::string& data_path,
                                                  const std::string& separator) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ && state_->snapshot_id == head_snapshot_id && state_->data_path == data_path &&
      state_->separator == separator) {
    if (state_->stale_tables.empty() && !state_->stale_views) {
      return {state_->catalog, Source::kCached};
    }
    // Copy, then re-read: a reader of the older catalog keeps its own.
    auto advanced = std::make_shared<LakeCatalog>(*state_->catalog);
    try {
      for (int64_t table_id : state_->stale_tables) {
        RereadLakeTable(rows, head_snapshot_id, separator, table_id, *advanced);
      }
      if (state_->stale_views) {
        RereadLakeViews(rows, head_snapshot_id, *advanced);
      }
    } catch (...) {
      state_.reset();
      throw;
    }
    state_->catalog = std::move(advanced);
    state_->stale_tables.clear();
    state_->stale_views = false;
    return {state_->catalog, Source::kReread};
  }
  state_.reset();
  auto catalog = std::make_shared<const LakeCatalog>(
      ReadLakeCatalog(rows, head_snapshot_id, data_path, separator));
  state_ = State{catalog, data_path, separator, head_snapshot_id, {}, false};
  return {catalog, Source::kFullRead};
}

void HeadCatalogCache::Advance(const std::optional<std::string>& base_head,
                               const store::WriteBatch& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!state_) return;
  try {
    if (!base_head || DecodeHeadSnapshotId(*base_head) != state_->snapshot_id) {
      state_.reset();
      return;
    }
    std::optional<int64_t> new_head;
    for (const auto& op : batch.ops()) {
      if (op.key == HeadKey()) {
        if (op.type == store::WriteBatch::OpType::kPut) new_head = DecodeHeadSnapshotId(op.value);
        continue;
      }
      const auto key = store::Key::Decode(op.key);
      if (key.kind() == Kind::kInlinedRowBatch && op.type == store::WriteBatch::OpType::kPut &&
          !Lists(*state_->catalog, static_cast<int64_t>(key.component(0)),
                 static_cast<int64_t>(key.component(1)))) {
        // Rows into an inlined data table the catalog left out as empty.
        state_->stale_tables.insert(static_cast<int64_t>(key.component(0)));
        continue;
      }
      switch (TouchOf(key.kind())) {
        case Touch::kNothing:
          break;
        case Touch::kTable:
          state_->stale_tables.insert(static_cast<int64_t>(key.component(0)));
          break;
        case Touch::kObject:
          // Schemas carry no tags in the catalog read; a view's are re-read
          // with the views.
          state_->stale_tables.insert(static_cast<int64_t>(key.component(0)));
          state_->stale_views = true;
          break;
        case Touch::kViews:
          state_->stale_views = true;
          break;
        case Touch::kEverything:
          state_.reset();
          return;
      }
    }
    if (!new_head) {
      state_.reset();  // every commit rewrites the head; anything else is not understood
      return;
    }
    state_->snapshot_id = *new_head;
  } catch (const store::Error&) {
    state_.reset();  // a key or head this build cannot read: read the store next time
  }
}

void HeadCatalogCache::Forget() {
  std::lock_guard<std::mutex> lock(mutex_);
  state_.reset();
}

}  // namespace moraine::commit
