// Head table images (records.proto HeadTableImage): each table live at the
// head as DuckLake's catalog load makes it of its rows, one value per table,
// so that loading the head catalog reads one value per table instead of
// joining five tables' rows (the cost of an ATTACH at many tables).
//
// Every commit that changes a row an image is made of (ducklake_table,
// ducklake_column, ducklake_tag, ducklake_column_tag,
// ducklake_inlined_data_tables) rewrites the images of the tables it touched
// in its own batch, read back from its own staged rows: the same reading the
// load does (lake_table_rows.h), so an image cannot disagree with the rows it
// was made of. A lake whose head does not say it keeps them (written before
// them) is read from its rows; `moraine migrate` writes them, and `moraine
// verify` checks them against the rows where the head says it keeps them.
//
// Thread-safety: each function uses the RowTransaction or view it is given,
// which the caller serializes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "commit/rows/lake_table_rows.h"
#include "commit/rows/row_transaction.h"
#include "commit/rows/staged_view.h"
#include "store/key.h"
#include "store/key_range.h"

namespace moraine::commit {

store::Key HeadTableImageKey(int64_t table_id);
store::KeyRange HeadTableImagesRange();

// A framed image of `load` (its table's path unresolved), and back. Decoding
// throws store::CorruptionError for a value that is not one.
std::string EncodeHeadTableImage(const LakeTableLoad& load);
LakeTableLoad DecodeHeadTableImage(std::string_view value);

// Stages in `view` the images of the tables whose rows `view` stages
// changes to: read through `rows` (a transaction over `view`) at the head
// `snapshot` the staged rows make; deleted for a table no longer live.
void UpdateHeadTableImages(RowTransaction& rows, StagedView& view, int64_t snapshot);

// Every image the head `rows` reads should hold, by encoded key.
std::map<std::string, std::string> ExpectedHeadTableImages(RowTransaction& rows);

}  // namespace moraine::commit
