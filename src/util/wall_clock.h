// The wall clock as the catalog records times: microseconds since the epoch,
// UTC (DuckLake's TIMESTAMP WITH TIME ZONE).
//
// Thread-safety: a function of the system clock; safe from any thread.
#pragma once

#include <cstdint>

namespace moraine::util {

int64_t NowMicros();

}  // namespace moraine::util
