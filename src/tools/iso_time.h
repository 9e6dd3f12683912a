// How the store tools print a time: microseconds since the epoch, UTC, as
// "YYYY-MM-DD HH:MM:SS.ffffff+00" (DuckDB's text for a TIMESTAMP WITH TIME
// ZONE in UTC).
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <string>

namespace moraine::tools {

std::string IsoTime(int64_t micros);

}  // namespace moraine::tools
