#include "commit/rows/inlined_row_batch.h"

#include <algorithm>

#include "store/error.h"
#include "store/key_kind.h"
#include "store/payload_fields.h"
#include "store/records.pb.h"
#include "store/value_frame.h"

namespace moraine::commit::inlined {

using store::FieldRead;
using WireFormat = store::PayloadWireFormat;
using Input = google::protobuf::io::CodedInputStream;

namespace {

constexpr store::Kind kKind = store::Kind::kInlinedRowBatch;
// The fields of InlinedRowBatchRecord.
constexpr int kRowIds = 1, kEnds = 2, kColumns = 3;

[[noreturn]] void ThrowCorrupt(const std::string& why) {
  throw store::CorruptionError("an inlined row batch " + why);
}

// Appends a repeated int64 field's values, packed or not, as the parser accepts both.
FieldRead ReadInt64s(WireFormat::WireType wire_type, Input& input, std::vector<int64_t>& out) {
  uint64_t value = 0;
  if (wire_type == WireFormat::WIRETYPE_VARINT) {
    if (!input.ReadVarint64(&value)) return FieldRead::kFailed;
    out.push_back(static_cast<int64_t>(value));
    return FieldRead::kRead;
  }
  if (wire_type != WireFormat::WIRETYPE_LENGTH_DELIMITED) return FieldRead::kSkip;
  uint32_t length = 0;
  if (!input.ReadVarint32(&length)) return FieldRead::kFailed;
  out.reserve(out.size() +
              std::min<size_t>(length, input.BytesUntilLimit()));  // a value per byte at most
  const auto limit = input.PushLimit(static_cast<int>(length));
  while (input.BytesUntilLimit() > 0) {
    if (!input.ReadVarint64(&value)) return FieldRead::kFailed;
    out.push_back(static_cast<int64_t>(value));
  }
  input.PopLimit(limit);
  return FieldRead::kRead;
}

// The next bytes field's value as a view into the buffer `input` reads.
FieldRead ReadBytesView(Input& input, std::vector<std::string_view>& out) {
  uint32_t length = 0;
  if (!input.ReadVarint32(&length)) return FieldRead::kFailed;
  const void* data = nullptr;
  int available = 0;
  if (length > 0 && (!input.GetDirectBufferPointer(&data, &available) ||
                     static_cast<uint32_t>(available) < length)) {
    return FieldRead::kFailed;
  }
  out.emplace_back(static_cast<const char*>(data), length);
  return input.Skip(static_cast<int>(length)) ? FieldRead::kRead : FieldRead::kFailed;
}

void AppendVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

}  // namespace

InlinedRowBatchView::InlinedRowBatchView(std::string_view value, size_t user_columns) {
  Read(value, user_columns);
}

void InlinedRowBatchView::Read(std::string_view value, size_t user_columns) {
  Clear();  // Parse appends
  try {
    Parse(value, user_columns);
  } catch (...) {
    Clear();
    throw;
  }
}

void InlinedRowBatchView::Clear() {
  row_ids_.clear();
  ends_.clear();
  columns_.clear();
}

void InlinedRowBatchView::Parse(std::string_view value, size_t user_columns) {
  const bool parsed = store::ForEachPayloadField(
      store::UnframePayload(kKind, value), [&](int number, auto wire_type, Input& input) {
        if (number == kRowIds) return ReadInt64s(wire_type, input, row_ids_);
        if (number == kEnds) return ReadInt64s(wire_type, input, ends_);
        if (number == kColumns && wire_type == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
          return ReadBytesView(input, columns_);
        }
        return FieldRead::kSkip;
      });
  if (!parsed)
    store::ThrowUnparsablePayload(kKind, store::v1::InlinedRowBatchRecord().GetTypeName());
  if (!ends_.empty() && ends_.size() != row_ids_.size()) {
    ThrowCorrupt("has " + std::to_string(row_ids_.size()) + " rows and " +
                 std::to_string(ends_.size()) + " end snapshots");
  }
  if (std::any_of(ends_.begin(), ends_.end(), [](int64_t end) { return end < 0; })) {
    ThrowCorrupt("has an end snapshot past the largest BIGINT");
  }
  if (columns_.size() != user_columns) {
    ThrowCorrupt("has " + std::to_string(columns_.size()) + " columns where its table has " +
                 std::to_string(user_columns));
  }
}

std::optional<std::string_view> InlinedRowBatchView::Cells::Next() {
  uint64_t header = 0;
  int shift = 0;
  size_t used = 0;
  for (;; ++used) {
    if (used == rest_.size() || shift > 63) ThrowCorrupt("column ends before its last row");
    const auto byte = static_cast<uint8_t>(rest_[used]);
    header |= static_cast<uint64_t>(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) break;
  }
  rest_.remove_prefix(used + 1);
  if (header == 0) return std::nullopt;
  const uint64_t length = header - 1;
  if (length > rest_.size()) ThrowCorrupt("cell runs past its column");
  const std::string_view cell = rest_.substr(0, length);
  rest_.remove_prefix(length);
  return cell;
}

bool InlinedRowBatchView::CellsComplete() const {
  try {
    for (size_t column = 0; column < columns_.size(); ++column) {
      Cells cells = ColumnCells(column);
      for (size_t row = 0; row < size(); ++row) cells.Next();
      if (!cells.rest_.empty()) return false;
    }
  } catch (const store::CorruptionError&) {
    return false;
  }
  return true;
}

InlinedRowBatch InlinedRowBatch::Decode(std::string_view value, size_t user_columns) {
  InlinedRowBatch batch(user_columns);
  batch.stored_value_ = std::make_shared<const std::string>(value);
  const InlinedRowBatchView view(*batch.stored_value_, user_columns);
  batch.rows_.reserve(view.size());
  for (size_t row = 0; row < view.size(); ++row) {
    if (batch.Find(view.row_id(row))) {
      ThrowCorrupt("holds row " + std::to_string(view.row_id(row)) + " twice");
    }
    batch.rows_.push_back(
        Slot{{view.row_id(row), view.end_snapshot(row), {}, false}, static_cast<int64_t>(row)});
    ++batch.live_;
    batch.IndexIfLarge();
  }
  batch.stored_cells_.resize(user_columns);
  for (size_t column = 0; column < user_columns; ++column) {
    auto cells = view.ColumnCells(column);
    auto& stored = batch.stored_cells_[column];
    stored.reserve(view.size());
    for (size_t row = 0; row < view.size(); ++row) stored.push_back(cells.Next());
  }
  return batch;
}

std::optional<size_t> InlinedRowBatch::Find(int64_t row_id) const {
  if (index_) {
    const auto found = index_->find(row_id);
    if (found == index_->end()) return std::nullopt;
    return found->second;
  }
  for (size_t index = 0; index < rows_.size(); ++index) {
    if (!rows_[index].removed && rows_[index].row_id == row_id) return index;
  }
  return std::nullopt;
}

void InlinedRowBatch::IndexIfLarge() {
  // Called after each row added: rows_.back() is the newest.
  if (index_) {
    index_->emplace(rows_.back().row_id, rows_.size() - 1);
    return;
  }
  if (live_ <= kSearchedInPlace) return;
  index_.emplace();
  index_->reserve(rows_.size());
  for (size_t index = 0; index < rows_.size(); ++index) {
    if (!rows_[index].removed) index_->emplace(rows_[index].row_id, index);
  }
}

std::optional<std::string_view> InlinedRowBatch::cell(size_t index, size_t column) const {
  const Slot& slot = rows_[index];
  if (slot.stored >= 0) return stored_cells_[column][static_cast<size_t>(slot.stored)];
  const auto& owned = slot.cells[column];
  return owned ? std::optional<std::string_view>(*owned) : std::nullopt;
}

void InlinedRowBatch::Append(Row row) {
  rows_.push_back(Slot{std::move(row), -1});
  ++live_;
  IndexIfLarge();
}

bool InlinedRowBatch::SameCells(const Slot& slot, const Row& row) const {
  if (row.cells.size() != user_columns_) return false;
  for (size_t column = 0; column < user_columns_; ++column) {
    const auto& given = row.cells[column];
    const auto stored = stored_cells_[column][static_cast<size_t>(slot.stored)];
    if (given.has_value() != stored.has_value() || (given && *given != *stored)) return false;
  }
  return true;
}

void InlinedRowBatch::Replace(size_t index, Row row) {
  Slot& slot = rows_[index];
  slot.end_snapshot = row.end_snapshot;
  if (slot.stored >= 0 && SameCells(slot, row)) return;  // an end, or nothing, changed
  slot.stored = -1;
  slot.cells = std::move(row.cells);
}

void InlinedRowBatch::Remove(size_t index) {
  rows_[index].removed = true;
  --live_;
  if (index_) index_->erase(rows_[index].row_id);
}

std::string InlinedRowBatch::Encode() const {
  store::v1::InlinedRowBatchRecord record;
  bool ended = false;
  for (const auto& row : rows_) ended |= !row.removed && row.end_snapshot.has_value();
  std::vector<std::string> columns(user_columns_);
  for (size_t index = 0; index < rows_.size(); ++index) {
    const Slot& row = rows_[index];
    if (row.removed) continue;
    record.add_row_ids(row.row_id);
    if (ended) {
      record.add_end_snapshots(row.end_snapshot ? static_cast<uint64_t>(*row.end_snapshot) + 1 : 0);
    }
    for (size_t column = 0; column < user_columns_; ++column) {
      const auto value = cell(index, column);
      AppendVarint(columns[column], value ? value->size() + 1 : 0);
      if (value) columns[column] += *value;
    }
  }
  for (auto& column : columns) record.add_columns(std::move(column));
  return store::FrameValue(kKind, record);
}

}  // namespace moraine::commit::inlined
