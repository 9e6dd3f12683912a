// `moraine inspect`: what a store is and where its space goes. A summary
// (store format, catalog version, head, snapshots) and a census of keys and
// bytes per subspace and kind, read at one consistent snapshot.
//
// Thread-safety: plain data; TakeCensus reads only `snapshot` (whose reads may
// run concurrently), so any thread may call it.
#pragma once

#include "store/kv_store.h"
#include "tools/tool_table.h"

namespace moraine::tools {

struct StoreCensus {
  ToolTable summary;  // (property, value)
  ToolTable census;   // (subspace, kind, keys, key_bytes, value_bytes), then a total row
};

// Reads every key of `snapshot`. Throws store::CorruptionError when a system
// record it reports does not decode (`moraine verify` names every such value).
StoreCensus TakeCensus(const store::KvSnapshot& snapshot);

}  // namespace moraine::tools
