// `moraine verify` (src/tools/store_verifier.h) on real RocksDB stores: a
// store the core wrote is clean, and each way of damaging one is reported
// with its key, while verifying changes nothing in the store.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "catalog/records.h"
#include "commit/rows/data_file_summary.h"
#include "commit/rows/inlined_batch_summary.h"
#include "commit/rows/inlined_row_batch.h"
#include "commit/verbs/catalog.h"
#include "store/error.h"
#include "store/key.h"
#include "store/records.pb.h"
#include "store/value_frame.h"
#include "support/temp_dir.h"
#include "tools/store_verifier.h"
#include "tools/tool_store.h"

namespace moraine {
namespace {

using catalog::ColumnDef;
using store::Key;
using store::Kind;

class StoreVerify : public ::testing::Test {
 protected:
  // Snapshots 1..5 of a table's life, each column change its own commit:
  //   1 create t(id, a, b)   2 rename a -> a2   3 rename a2 -> a3
  //   4 drop b               5 add c                 6 create x   7 drop x
  // so field 3 ended at 4 and table x lived only at snapshot 6.
  void SetUp() override {
    auto catalog = commit::Catalog::Open({.location = Path()});
    catalog->Commit([&](commit::Transaction& txn) {
      table_ = txn.CreateTable("main", "t",
                               {ColumnDef::Leaf("id", "int32"), ColumnDef::Leaf("a", "varchar"),
                                ColumnDef::Leaf("b", "varchar")});
    });
    catalog->Commit([&](commit::Transaction& txn) { txn.RenameColumn(table_, {"a"}, "a2"); });
    catalog->Commit([&](commit::Transaction& txn) { txn.RenameColumn(table_, {"a2"}, "a3"); });
    catalog->Commit([&](commit::Transaction& txn) { txn.DropColumn(table_, {"b"}); });
    catalog->Commit([&](commit::Transaction& txn) {
      txn.AddColumn(table_, {}, ColumnDef::Leaf("c", "int64"));
    });
    catalog->Commit([&](commit::Transaction& txn) {
      dropped_table_ = txn.CreateTable("main", "x", {ColumnDef::Leaf("k", "int32")});
    });
    catalog->Commit([&](commit::Transaction& txn) { txn.DropTable("main", "x"); });
  }

  std::string Path() const { return dir_.path("store"); }
  uint64_t T() const { return static_cast<uint64_t>(table_); }

  // Writes to the store directly, below the catalog: the damage under test.
  void Damage(const std::function<void(store::KvStore&, store::WriteBatch&)>& damage) {
    auto kv = store::OpenKvStore({.location = Path(), .create_if_missing = false});
    store::WriteBatch batch;
    damage(*kv, batch);
    kv->Write(batch);
  }

  std::map<std::string, std::string> Dump() {
    auto kv = store::OpenKvStore({.location = Path(), .read_only = true});
    std::map<std::string, std::string> all;
    auto view = kv->GetSnapshot();
    for (auto it = view->Scan(store::KeyRange{}); it->Valid(); it->Next()) {
      all.emplace(it->key(), it->value());
    }
    return all;
  }

  // Verifies the store, checking that doing so changed nothing.
  tools::VerifyReport Verify() {
    const auto before = Dump();
    tools::VerifyReport report =
        tools::VerifyStore(*tools::OpenStoreReadOnly(Path())->GetSnapshot());
    EXPECT_EQ(Dump(), before) << "verify changed the store";
    return report;
  }

  static std::string Lines(const tools::VerifyReport& report) {
    std::string lines;
    for (const auto& v : report.violations)
      lines += v.check + " " + v.key + ": " + v.message + "\n";
    return lines;
  }

  static bool Has(const tools::VerifyReport& report, const std::string& check,
                  const std::string& key) {
    for (const auto& v : report.violations) {
      if (v.check == check && v.key == key) return true;
    }
    return false;
  }

  test::TempDir dir_;
  catalog::Id table_ = 0;
  catalog::Id dropped_table_ = 0;
};

TEST_F(StoreVerify, AStoreTheCoreWroteIsClean) {
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(report.clean()) << Lines(report);
  EXPECT_GT(report.keys_scanned, 10u);
}

TEST_F(StoreVerify, AFlippedByteInAValueIsReportedAtItsKey) {
  const Key key = Key::Current(Kind::kColumn, {T(), 1});
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    std::string value = *store::GetLatest(kv, key.Encode());
    value.back() = static_cast<char>(value.back() ^ 0x01);
    batch.Put(key.Encode(), value);
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "value", key.ToString())) << Lines(report);
  EXPECT_EQ(report.violations.size(), 1u) << Lines(report);
}

TEST_F(StoreVerify, AHistoryRecordWhoseEndIsNotItsKeysIsReported) {
  const Key key = Key::History(Kind::kColumn, {T(), 3}, 4);
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    catalog::ColumnRecord column;
    store::UnframeValue(Kind::kColumn, *store::GetLatest(kv, key.Encode()), &column);
    column.set_end_snapshot(5);
    batch.Put(key.Encode(), store::FrameValue(Kind::kColumn, column));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "history-end", key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, AFieldIdUsedAgainAfterItsColumnWasDroppedIsReported) {
  // Field 3 ended at snapshot 4 ("b" dropped); a new live column under id 3
  // from snapshot 5 is a reused field id: snapshot 4 saw no field 3.
  const Key key = Key::Current(Kind::kColumn, {T(), 3});
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    catalog::ColumnRecord column;
    column.set_column_id(3);
    column.set_table_id(table_);
    column.set_begin_snapshot(5);
    column.set_column_order(9);
    column.set_column_name("b_again");
    column.set_column_type("int32");
    column.set_nulls_allowed(true);
    batch.Put(key.Encode(), store::FrameValue(Kind::kColumn, column));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "field-id-reused", key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, AMissingSnapshotIsReported) {
  // Only snapshot 6 saw table x; DuckLake's expiry would have deleted x with
  // it. (A column version only a missing snapshot saw is no evidence:
  // DuckLake keeps a live table's ended column versions through expiry.)
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Delete(Key::Current(Kind::kSnapshot, {6}).Encode());
  });
  const tools::VerifyReport report = Verify();
  const Key table = Key::History(Kind::kTable, {uint64_t(dropped_table_)}, 7);
  EXPECT_TRUE(Has(report, "snapshot-missing", table.ToString())) << Lines(report);
}

TEST_F(StoreVerify, AMissingHeadSnapshotIsReported) {
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Delete(Key::Current(Kind::kSnapshot, {7}).Encode());
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "snapshot-missing", Key::Current(Kind::kSnapshot, {7}).ToString()))
      << Lines(report);
}

TEST_F(StoreVerify, HeadCountersTheSnapshotRecordDoesNotHoldAreReported) {
  EXPECT_FALSE(Has(Verify(), "head-counters", "system/head"));
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    const std::string key = Key::Current(Kind::kHead, {}).Encode();
    catalog::HeadRecord head;
    store::UnframeValue(Kind::kHead, *kv.GetSnapshot()->Get(key), &head);
    head.mutable_newest_counters()->set_next_file_id(head.newest_counters().next_file_id() + 1000);
    batch.Put(key, store::FrameValue(Kind::kHead, head));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "head-counters", "system/head")) << Lines(report);
}

// A commit opens a batch beyond the head's bound without a read, so one
// there would be overwritten unread.
TEST_F(StoreVerify, AnInlinedBatchBeyondTheHeadsBoundIsReported) {
  EXPECT_TRUE(Lines(Verify()).find("inlined-batch-beyond-bound") == std::string::npos);
  const Key key = Key::Current(Kind::kInlinedRowBatch, {T(), 1, 100});
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(key.Encode(), commit::inlined::InlinedRowBatch(1).Encode());
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "inlined-batch-beyond-bound", key.ToString())) << Lines(report);
}

// A new lake keeps a summary of every inlined batch (its head says so), so a
// batch without one, or a summary of a batch the store does not hold, is
// damage.
TEST_F(StoreVerify, AnInlinedBatchWithoutItsSummaryAndASummaryWithoutItsBatchAreReported) {
  EXPECT_TRUE(Lines(Verify()).find("inlined-batch-summary") == std::string::npos);
  const Key batch_key = Key::Current(Kind::kInlinedRowBatch, {T(), 1, 5});
  const Key page_key = Key::Current(Kind::kInlinedBatchSummary, {T(), 1, 1});
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    commit::inlined::InlinedRowBatch rows(1);
    rows.Append({.row_id = 0,
                 .end_snapshot = std::nullopt,
                 .cells = {std::string("\x02\x19x")},
                 .removed = false});
    batch.Put(batch_key.Encode(), rows.Encode());
    // Page 1 holds the batches of snapshots 64 to 127.
    batch.Put(page_key.Encode(),
              commit::inlined::EncodeSummaryPage(
                  {{.begin_snapshot = 70, .rows = 1, .ended = {}, .columns = {}}}));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "inlined-batch-summary", batch_key.ToString())) << Lines(report);
  EXPECT_TRUE(Has(report, "inlined-batch-summary", page_key.ToString())) << Lines(report);
}

// A page whose bounds run past its batches is no page: verify names it, as
// a read of it throws CorruptionError.
TEST_F(StoreVerify, ASummaryPageThatDoesNotParseIsReported) {
  const Key page_key = Key::Current(Kind::kInlinedBatchSummary, {T(), 1, 0});
  store::v1::InlinedBatchSummaryPage page;
  page.add_begin_snapshots(5);
  page.add_rows(1);
  page.add_ended_counts(0);
  page.add_column_bounds(std::string("\x06\x09x", 3));  // a 9-byte cell of 1 byte
  const std::string value = store::FrameValue(Kind::kInlinedBatchSummary, page);
  commit::inlined::SummaryPage read;
  EXPECT_THROW(read.Read(value), store::CorruptionError);
  Damage([&](store::KvStore&, store::WriteBatch& batch) { batch.Put(page_key.Encode(), value); });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "inlined-batch-summary", page_key.ToString())) << Lines(report);
}

// A new lake keeps a summary of every data file row (its head says so), so
// a file without one, a page of files the store does not hold, a page that
// disagrees with its file's stats and a page out of order are damage.
TEST_F(StoreVerify, DataFileSummariesThatDisagreeWithTheirFilesAreReported) {
  EXPECT_TRUE(Lines(Verify()).find("data-file-summary") == std::string::npos);
  catalog::DataFileRecord file;
  file.set_data_file_id(70);
  file.set_table_id(table_);
  file.set_begin_snapshot(1);
  file.set_path("f.parquet");
  file.set_record_count(3);
  store::v1::FileColumnStatsSetRecord stats;
  stats.set_data_file_id(70);
  stats.set_table_id(table_);
  auto& column = *stats.add_entries();
  column.set_column_id(1);
  column.set_min_value("1");
  column.set_max_value("9");
  // Page 1 of the table holds files 64 to 127: file 70's has no entry.
  const Key unsummarized = Key::Current(Kind::kDataFileSummary, {T(), 1});
  // Page 2 summarizes a file 130 the store does not hold.
  const Key orphan = Key::Current(Kind::kDataFileSummary, {T(), 2});
  // Page 3 lists its files out of order.
  const Key unordered = Key::Current(Kind::kDataFileSummary, {T(), 3});
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(Key::Current(Kind::kDataFile, {T(), 70}).Encode(),
              store::FrameValue(Kind::kDataFile, file));
    batch.Put(Key::Current(Kind::kFileColumnStatsSet, {T(), 70}).Encode(),
              store::FrameValue(Kind::kFileColumnStatsSet, stats));
    store::v1::DataFileSummaryPage page;
    page.add_files()->set_data_file_id(130);
    batch.Put(orphan.Encode(), store::FrameValue(Kind::kDataFileSummary, page));
    page.add_files()->set_data_file_id(129);
    batch.Put(unordered.Encode(), store::FrameValue(Kind::kDataFileSummary, page));
  });
  tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "data-file-summary", unsummarized.ToString())) << Lines(report);
  EXPECT_TRUE(Has(report, "data-file-summary", orphan.ToString())) << Lines(report);
  EXPECT_TRUE(Has(report, "data-file-summary", unordered.ToString())) << Lines(report);
  EXPECT_THROW(
      commit::files::ReadSummaryPage(store::FrameValue(Kind::kDataFileSummary,
                                                       [] {
                                                         store::v1::DataFileSummaryPage page;
                                                         page.add_files()->set_data_file_id(2);
                                                         page.add_files()->set_data_file_id(1);
                                                         return page;
                                                       }())),
      store::CorruptionError);

  // The page as the commit path writes it, but with the file's max changed.
  store::v1::DataFileSummaryPage page;
  auto& summary = *page.add_files();
  summary.set_data_file_id(70);
  summary.set_begin_snapshot(1);
  summary.set_record_count(3);
  auto& bounds = *summary.add_columns();
  bounds.set_column_id(1);
  bounds.set_min_value("1");
  bounds.set_max_value("8");
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(unsummarized.Encode(), store::FrameValue(Kind::kDataFileSummary, page));
  });
  report = Verify();
  EXPECT_TRUE(Has(report, "data-file-summary", unsummarized.ToString())) << Lines(report);
  bounds.set_max_value("9");
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(unsummarized.Encode(), store::FrameValue(Kind::kDataFileSummary, page));
  });
  report = Verify();
  EXPECT_FALSE(Has(report, "data-file-summary", unsummarized.ToString())) << Lines(report);

  // The head says every page has its bounds: this one has none, then wrong
  // ones, then its own.
  const Key bounds_key = Key::Current(Kind::kDataFileSummaryBounds, {T(), 1});
  EXPECT_TRUE(Has(report, "data-file-summary", bounds_key.ToString())) << Lines(report);
  store::v1::DataFileSummaryBounds page_bounds = commit::files::BoundsOf(page);
  ASSERT_EQ(page_bounds.columns_size(), 1);
  page_bounds.mutable_columns(0)->set_max_integer(8);
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(bounds_key.Encode(), store::FrameValue(Kind::kDataFileSummaryBounds, page_bounds));
  });
  EXPECT_TRUE(Has(Verify(), "data-file-summary", bounds_key.ToString()));
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    batch.Put(bounds_key.Encode(),
              store::FrameValue(Kind::kDataFileSummaryBounds, commit::files::BoundsOf(page)));
  });
  report = Verify();
  EXPECT_FALSE(Has(report, "data-file-summary", bounds_key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, AColumnOfATableThatDoesNotExistIsReported) {
  const Key key = Key::Current(Kind::kColumn, {T() + 100, 1});
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    catalog::ColumnRecord column;
    store::UnframeValue(Kind::kColumn,
                        *store::GetLatest(kv, Key::Current(Kind::kColumn, {T(), 1}).Encode()),
                        &column);
    column.set_table_id(table_ + 100);
    batch.Put(key.Encode(), store::FrameValue(Kind::kColumn, column));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "dangling-reference", key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, ARecordUnderAnotherRecordsKeyIsReported) {
  // Column 1's record copied under column 2's key.
  const Key key = Key::Current(Kind::kColumn, {T(), 2});
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    batch.Put(key.Encode(), *store::GetLatest(kv, Key::Current(Kind::kColumn, {T(), 1}).Encode()));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "key-record", key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, StatsOutOfColumnOrderOrOfAMissingColumnAndFormatOneStatsAreReported) {
  const Key table_stats = Key::Current(Kind::kTableColumnStatsSet, {T()});
  const Key old_stats = Key::Current(Kind::kTableColumnStats, {T(), 1});
  Damage([&](store::KvStore&, store::WriteBatch& batch) {
    store::v1::TableColumnStatsSetRecord stats;
    stats.set_table_id(table_);
    for (int64_t column : {2, 1, 99}) stats.add_entries()->set_column_id(column);
    batch.Put(table_stats.Encode(), store::FrameValue(Kind::kTableColumnStatsSet, stats));
    store::v1::TableColumnStatsRecord old;
    old.set_table_id(table_);
    old.set_column_id(1);
    batch.Put(old_stats.Encode(), store::FrameValue(Kind::kTableColumnStats, old));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "entry-order", table_stats.ToString())) << Lines(report);
  EXPECT_TRUE(Has(report, "dangling-reference", table_stats.ToString())) << Lines(report);
  EXPECT_TRUE(Has(report, "format", old_stats.ToString())) << Lines(report);
}

TEST_F(StoreVerify, TwoLiveSiblingColumnsOfOneNameAreReported) {
  const Key key = Key::Current(Kind::kColumn, {T(), 4});  // "c", added at 5
  Damage([&](store::KvStore& kv, store::WriteBatch& batch) {
    catalog::ColumnRecord column;
    store::UnframeValue(Kind::kColumn, *store::GetLatest(kv, key.Encode()), &column);
    column.set_column_name("id");
    batch.Put(key.Encode(), store::FrameValue(Kind::kColumn, column));
  });
  const tools::VerifyReport report = Verify();
  EXPECT_TRUE(Has(report, "name-collision", key.ToString())) << Lines(report);
}

TEST_F(StoreVerify, PathsWithoutACatalogAreClearErrors) {
  EXPECT_THROW(tools::OpenStoreReadOnly(dir_.path("absent")), store::NotFoundError);
  // A key-value store that holds no moraine catalog.
  store::OpenKvStore({.location = dir_.path("empty")});
  EXPECT_THROW(tools::OpenStoreReadOnly(dir_.path("empty")), store::InvalidArgumentError);
}

}  // namespace
}  // namespace moraine
