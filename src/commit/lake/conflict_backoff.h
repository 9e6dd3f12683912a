// How a commit that lost its race to another waits before it runs again on
// the new head (the verb path's Catalog::Commit, the tag moves): a writer that
// keeps losing to faster ones must eventually win.
//
// Thread-safety: safe from any thread (a generator per thread).
#pragma once

namespace moraine::commit {

// Waits a randomized, exponentially growing while after the `retries`-th lost
// race (10 us doubling, capped at 2 ms), so contenders spread out instead of
// colliding in lockstep.
void BackOffAfterConflict(int retries);

}  // namespace moraine::commit
