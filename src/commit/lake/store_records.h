// The system records every commit path writes the same way: the head pointer
// (the conflict anchor every batch rewrites), the store format record, and the
// namespace (the schema name the catalog tables are served under).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace moraine::store::v1 {
class HeadCounters;
}

namespace moraine::commit {

// The layout version this build writes (RFC 0015) and who wrote it.
// 2: column stats in one container per data file or table (stats_repack.h).
// 3: inlined rows in one batch per begin snapshot (inlined_rows_repack.h).
// 4: inlined data table shapes keyed and as deltas (inlined_table_shape.h);
//    a format 3 store holds plain shapes only, which format 4 reads as they are.
inline constexpr uint64_t kStoreFormatVersion = 4;
inline constexpr const char* kWrittenBy = "moraine 0.1.0";

// The encoded key of sys/head.
const std::string& HeadKey();
// A framed head record; `newest_counters`, if given, are snapshot_id's;
// `inlined_batches_through`, if given, bounds every inlined batch's begin
// snapshot; `summaries` says which derived summaries the lake keeps whole
// (records.proto).
struct KeptSummaries {
  bool inlined_batches = false;   // HeadRecord.inlined_batch_summaries
  bool data_files = false;        // HeadRecord.data_file_summaries
  bool data_file_bounds = false;  // HeadRecord.data_file_summary_bounds
};
std::string EncodeHead(int64_t snapshot_id, uint64_t batch_count,
                       const store::v1::HeadCounters* newest_counters = nullptr,
                       std::optional<int64_t> inlined_batches_through = std::nullopt,
                       KeptSummaries summaries = {});
// The snapshot id a framed head record names. Throws store::CorruptionError.
int64_t DecodeHeadSnapshotId(std::string_view value);
// The number of batches a framed head record counts (every commit adds one).
// Throws store::CorruptionError.
uint64_t DecodeHeadBatchCount(std::string_view value);
// The encoded key of sys/format and a framed format record for this build.
const std::string& FormatKey();
std::string EncodeFormat();
// The encoded key of sys/namespace, a framed namespace record, and the name a
// framed one holds.
const std::string& NamespaceKey();
std::string EncodeNamespace(std::string_view name);
std::string DecodeNamespace(std::string_view value);

}  // namespace moraine::commit
