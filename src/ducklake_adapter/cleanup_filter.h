// The filter DuckLake's ducklake_cleanup_old_files (and CHECKPOINT's
// cleanup) hands GetOldFilesForCleanup, after its query over
// ducklake_files_scheduled_for_deletion (src/functions/
// ducklake_cleanup_files.cpp): empty for cleanup_all, or
// "WHERE schedule_start < '<time>'". Narrowed so that the files a held
// backup may read (commit/tags/protected_tag.h, holds_files_after_batch)
// are kept.
//
// Thread-safety: a pure function of its arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moraine::ducklake_adapter {

// `filter` narrowed to leave out the files `kept`, or nullopt for a filter
// of another shape (which a build of DuckLake with another text would send).
std::optional<std::string> CleanupFilterKeeping(std::string_view filter,
                                                const std::vector<int64_t>& kept);

}  // namespace moraine::ducklake_adapter
