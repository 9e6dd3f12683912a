// The one known hang the store-open target steps around (see README,
// "Fuzzing"): RocksDB 7.8's secondary instance, which moraine's read-only open
// uses, reads the write-ahead log with FragmentBufferedReader. For a record
// header of a recyclable type (5-8) naming another log number it reports
// kOldRecord without consuming the header, before any checksum is consulted,
// and its caller asks for the same fragment again, forever. moraine never
// writes recyclable records (recycle_log_file_num is 0), so only damage
// produces one; a one-bit flip of a record type (1 -> 5) is enough.
//
// The target skips the read-only open of such a directory (the read-write
// open still runs). MORAINE_FUZZ_UNGUARDED=1 turns the guard off, to check
// whether a newer RocksDB or a moraine-side check has closed the gap.
#pragma once

#include <filesystem>

namespace moraine::fuzz {

// Whether a write-ahead log (*.log) in `dir` has a record header of a
// recyclable type at a position RocksDB's log reader may parse one. Errs on
// the side of true: it follows record lengths through each 32 KiB block as
// the reader does, ignoring checksums, so it visits a superset of the
// reader's positions.
bool MayHangSecondaryOpen(const std::filesystem::path& dir);

}  // namespace moraine::fuzz
