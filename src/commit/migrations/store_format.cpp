#include "commit/migrations/store_format.h"

#include "commit/rows/data_file_summary.h"
#include "commit/rows/inlined_batch_summary.h"

#include "commit/lake/store_records.h"
#include "commit/migrations/inlined_rows_repack.h"
#include "commit/migrations/stats_repack.h"
#include "store/error.h"
#include "store/key.h"
#include "store/key_range.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit {

namespace {

std::string MigrationKey() { return store::Key::Current(store::Kind::kMigration, {}).Encode(); }

std::string MigrateHint(const std::string& location) {
  return "run moraine_migrate('" + location + "') or `moraine migrate " + location + "` first";
}

}  // namespace

std::optional<uint64_t> ReadStoreFormat(const store::KvSnapshot& snapshot) {
  if (auto value = snapshot.Get(FormatKey())) {
    store::v1::FormatRecord format;
    store::UnframeValue(store::Kind::kFormat, *value, &format);
    return format.format_version();
  }
  // Stores written before the format record existed have a head and no format.
  if (snapshot.Get(HeadKey())) return 0;
  return std::nullopt;
}

void RequireCurrentStoreFormat(store::KvStore& store) {
  auto snapshot = store.GetSnapshot();
  const std::string& location = store.location();
  if (snapshot->Get(store::Key::Current(store::Kind::kRestoreMarker, {}).Encode())) {
    throw store::UnsupportedVersionError(
        "store '" + location +
        "' is an unfinished restore (it was interrupted); run the same `moraine restore` "
        "again to finish it");
  }
  if (snapshot->Get(MigrationKey())) {
    throw store::UnsupportedVersionError("store '" + location +
                                         "' is in the middle of a format migration; " +
                                         MigrateHint(location));
  }
  const auto format = ReadStoreFormat(*snapshot);
  if (!format) {
    // No format and no head: a new store DuckLake has yet to initialize, which
    // holds nothing at all. Anything else is some other program's database.
    if (snapshot->Scan(store::KeyRange{})->Valid()) {
      throw store::InvalidArgumentError(
          "'" + location +
          "' is not a moraine store: it is a key-value database without moraine's format "
          "record and catalog head");
    }
    return;
  }
  if (*format == kStoreFormatVersion) return;
  if (*format > kStoreFormatVersion) {
    throw store::UnsupportedVersionError(
        "store '" + location + "' has format " + std::to_string(*format) + ", newer than format " +
        std::to_string(kStoreFormatVersion) + " that this build (" + kWrittenBy +
        ") reads; open it with a newer moraine");
  }
  throw store::UnsupportedVersionError(
      "store '" + location + "' has format " + std::to_string(*format) + ", older than format " +
      std::to_string(kStoreFormatVersion) + " that this build uses; " + MigrateHint(location));
}

namespace {

// Writes the summaries the lake's head does not say it keeps (of every
// inlined row batch of `store`, of this build's format, and of every data
// file row, with their pages' bounds) and a head that says it keeps them all;
// whether it wrote any. One
// batch conditional on the head, as the format's.
bool WriteMissingSummaries(store::KvStore& store, const std::string& location) {
  const auto snapshot = store.GetSnapshot();
  const auto head = snapshot->Get(HeadKey());
  if (!head) return false;
  store::v1::HeadRecord head_record;
  store::UnframeValue(store::Kind::kHead, *head, &head_record);
  const bool files_summarized =
      head_record.data_file_summaries() && head_record.data_file_summary_bounds();
  if (head_record.inlined_batch_summaries() && files_summarized) return false;
  store::WriteBatch batch;
  if (!head_record.inlined_batch_summaries()) inlined::SummarizeEveryBatch(*snapshot, &batch);
  if (!files_summarized) files::SummarizeEveryFile(*snapshot, &batch);
  batch.Put(
      HeadKey(),
      EncodeHead(
          static_cast<int64_t>(head_record.snapshot_id()), head_record.batch_count() + 1,
          head_record.has_newest_counters() ? &head_record.newest_counters() : nullptr,
          head_record.has_inlined_batches_through()
              ? std::optional<int64_t>(head_record.inlined_batches_through())
              : std::nullopt,
          KeptSummaries{.inlined_batches = true, .data_files = true, .data_file_bounds = true}));
  if (!store.WriteIfHeadUnchanged(HeadKey(), head, batch)) {
    throw store::ConflictError("store '" + location + "' changed during migration; retry");
  }
  return true;
}

}  // namespace

MigrationReport MigrateStore(const std::string& location) {
  auto store = store::OpenKvStore({.location = location, .create_if_missing = false});
  auto snapshot = store->GetSnapshot();
  const auto format = ReadStoreFormat(*snapshot);
  if (!format) throw store::NotFoundError("'" + location + "' holds no moraine store");
  MigrationReport report{*format, kStoreFormatVersion};
  if (*format > kStoreFormatVersion) {
    throw store::UnsupportedVersionError(
        "store '" + location + "' has format " + std::to_string(*format) +
        "; this build cannot migrate it down to format " + std::to_string(kStoreFormatVersion));
  }
  if (*format == kStoreFormatVersion && !snapshot->Get(MigrationKey())) {
    report.from = report.to;
    report.summarized = WriteMissingSummaries(*store, location);
    return report;
  }
  // Format 0 -> 1 added the format record (the layout was otherwise the
  // same); 1 -> 2 packs column stats into one container per data file or
  // table; 2 -> 3 packs inlined rows into batches; 3 -> 4 changes no record
  // (it lets shapes be keyed or deltas, which a format 3 build would misread).
  // One batch, conditional on the head, so a concurrent commit cannot
  // slip between the read above and this write, and a crash leaves the old
  // format or the new one, never a mix.
  const auto head = snapshot->Get(HeadKey());
  store::v1::HeadRecord head_record;
  store::UnframeValue(store::Kind::kHead, *head, &head_record);
  store::WriteBatch batch;
  if (*format < 2) RepackColumnStats(*snapshot, &batch);
  if (*format < 3) RepackInlinedRows(*snapshot, &batch);
  batch.Put(FormatKey(), EncodeFormat());
  batch.Delete(MigrationKey());
  batch.Put(HeadKey(), EncodeHead(static_cast<int64_t>(head_record.snapshot_id()),
                                  head_record.batch_count() + 1));
  if (!store->WriteIfHeadUnchanged(HeadKey(), head, batch)) {
    throw store::ConflictError("store '" + location + "' changed during migration; retry");
  }
  report.summarized = WriteMissingSummaries(*store, location);
  return report;
}

}  // namespace moraine::commit
