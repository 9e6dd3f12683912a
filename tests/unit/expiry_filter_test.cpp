// How moraine reads the filter DuckLake's ducklake_expire_snapshots passes
// GetAllSnapshots: the exact texts of the pinned builds, and what is not one.
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

}  // namespace
}  // namespace moraine::ducklake_adapter
