// `moraine log PATH`: the lake's snapshots newest first, like `git log`: when,
// the schema version, what changed (DuckLake's changes_made), who and why.
#pragma once

#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

// (snapshot_id, snapshot_time, schema_version, changes, author,
// commit_message), newest first; snapshot_time is ISO 8601 UTC.
ToolTable SnapshotLog(const store::KvSnapshot& snapshot);

}  // namespace moraine::tools
