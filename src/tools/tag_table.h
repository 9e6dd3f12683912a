// `moraine tags PATH` and `moraine_tags(lake)`: the lake's protected tags
// (commit/tags/protected_tag.h) as a table, oldest first.
//
// Thread-safety: a function of a store snapshot, whose reads may run
// concurrently.
#pragma once

#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

// (name, snapshot_id, created, author, created_at_head, removed,
// removed_at_head, holds_files_after_batch: set for a backup's hold): the
// unended tags, or every tag ever made with
// `include_ended` (an ended tag has its removal set); in the order they were
// made. Times are ISO 8601 UTC.
ToolTable ProtectedTagTable(const store::KvSnapshot& snapshot, bool include_ended);

}  // namespace moraine::tools
