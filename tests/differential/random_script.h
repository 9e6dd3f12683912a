// Seeded random DDL/DML scripts for the differential harness: schemas and
// tables created and dropped, columns added, dropped and renamed (struct
// fields and list-element struct fields included), widening type promotions
// (one column or a whole struct), defaults set and dropped, small inserts
// (inlined) and large ones (Parquet), updates, deletes, flushes, compaction,
// expiry and cleanup, comments, views, macros and bucket partitioning. The generator keeps a model
// of the schema so that nearly every statement is valid; a statement both lakes refuse alike is not
// a mismatch.
//
// The same seed and length always give the same script (std::mt19937_64 and
// no distribution whose output is implementation-defined).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace moraine::differential {

// With `avoid_known_divergences`, UPDATEs go only to tables with at most one
// Parquet file. DuckLake numbers the delete files of one commit in the order
// of a hash map keyed by their random file names (DuckLakeDelete::Finalize,
// `written_files`), and reads a table's files back joined in delete-file
// order; an UPDATE over several files then writes its new file with the same
// rows in another order (another file_size_bytes). Two stock catalogs differ
// the same way (MORAINE_DIFF_CONTROL=1 on
// known_divergences/update_file_order.sql fails about every other run), so it
// is DuckLake's nondeterminism, not moraine's. MORAINE_DIFF_KNOWN_DIVERGENCES=1
// turns the avoidance off.
std::vector<std::string> GenerateRandomScript(uint64_t seed, size_t statements,
                                              bool avoid_known_divergences = true);

}  // namespace moraine::differential
