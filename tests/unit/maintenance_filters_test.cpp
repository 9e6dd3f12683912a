// How moraine reads the filters DuckLake's maintenance functions pass its
// manager (ducklake_expire_snapshots to GetAllSnapshots, the old-files
// cleanup to GetOldFilesForCleanup): the exact texts of the pinned builds,
// and what is not one.
#include "ducklake_adapter/cleanup_filter.h"
#include "ducklake_adapter/expiry_filter.h"

#include <gtest/gtest.h>

namespace moraine::ducklake_adapter {
namespace {

const std::string kPrefix =
    "snapshot_id != (SELECT MAX(snapshot_id) FROM {METADATA_CATALOG}.ducklake_snapshot) AND ";

TEST(ExpiryFilter, VersionsAreReadAsTheIdsNamed) {
  const auto filter = ReadExpiryFilter(kPrefix + "snapshot_id IN (3, 17, 4)");
  EXPECT_EQ(filter.kind, ExpiryFilter::Kind::kVersions);
  EXPECT_EQ(filter.versions, (std::vector<int64_t>{3, 17, 4}));
  EXPECT_EQ(ReadExpiryFilter(kPrefix + "snapshot_id IN (9)").versions, std::vector<int64_t>{9});
}

TEST(ExpiryFilter, AnExpiryByTimeIsNarrowedToLeaveSnapshotsOut) {
  const std::string by_time = kPrefix + "snapshot_time < '2026-12-06T01:02:03.000456+00'";
  EXPECT_EQ(ReadExpiryFilter(by_time).kind, ExpiryFilter::Kind::kOlderThan);
  EXPECT_EQ(ExcludingSnapshots(by_time, {2, 5}), by_time + " AND snapshot_id NOT IN (2, 5)");
  EXPECT_EQ(ExcludingSnapshots(by_time, {}), by_time);
}

TEST(ExpiryFilter, AnythingElseIsNotAnExpiry) {
  for (const std::string& other : {
           std::string(),                                         // snapshots()
           std::string("snapshot_id IN (1, 2)"),                  // no prefix
           kPrefix + "snapshot_id IN (1, x)",                     // not ids
           kPrefix + "snapshot_id IN (1,2)",                      // not DuckLake's joining
           kPrefix + "snapshot_id IN (1) OR snapshot_id IN (2)",  // more than the list
           kPrefix + "snapshot_time < '2026' OR true OR 'a'",     // more than a time
           kPrefix + "schema_version < 3",                        // another criterion
       }) {
    EXPECT_EQ(ReadExpiryFilter(other).kind, ExpiryFilter::Kind::kOther) << other;
  }
}

TEST(CleanupFilter, HeldFilesAreLeftOutOfEitherCleanup) {
  EXPECT_EQ(CleanupFilterKeeping("", {4, 9}), "WHERE data_file_id NOT IN (4, 9)");
  const std::string by_time = "WHERE schedule_start < '2026-12-04T03:00:00+00'";
  EXPECT_EQ(CleanupFilterKeeping(by_time, {4}), by_time + " AND data_file_id NOT IN (4)");
  EXPECT_EQ(CleanupFilterKeeping(by_time, {}), by_time);
  EXPECT_EQ(CleanupFilterKeeping("", {}), "");
  EXPECT_EQ(CleanupFilterKeeping("WHERE true", {4}), std::nullopt);
  EXPECT_EQ(CleanupFilterKeeping(by_time + " OR true OR 'x'", {4}), std::nullopt);
}

}  // namespace
}  // namespace moraine::ducklake_adapter
