#include "commit/rows/commit_intent.h"

#include <variant>

#include "commit/rows/commit_intent.pb.h"
#include "store/error.h"

namespace moraine::commit {
namespace {

constexpr uint32_t kFormat = 1;

void EncodeRow(const Row& row, v1::IntentRow* out) {
  for (const Cell& cell : row) {
    v1::IntentCell* encoded = out->add_cells();
    if (const auto* integer = std::get_if<int64_t>(&cell)) {
      encoded->set_integer(*integer);
    } else if (const auto* boolean = std::get_if<bool>(&cell)) {
      encoded->set_boolean(*boolean);
    } else if (const auto* text = std::get_if<std::string>(&cell)) {
      encoded->set_text(*text);
    } else if (const auto* opaque = std::get_if<OpaqueValue>(&cell)) {
      encoded->set_opaque(opaque->bytes);
    }
  }
}

Row DecodeRow(const v1::IntentRow& row) {
  Row out;
  out.reserve(row.cells_size());
  for (const v1::IntentCell& cell : row.cells()) {
    switch (cell.value_case()) {
      case v1::IntentCell::kInteger:
        out.emplace_back(cell.integer());
        break;
      case v1::IntentCell::kBoolean:
        out.emplace_back(cell.boolean());
        break;
      case v1::IntentCell::kText:
        out.emplace_back(cell.text());
        break;
      case v1::IntentCell::kOpaque:
        out.emplace_back(OpaqueValue{cell.opaque()});
        break;
      case v1::IntentCell::VALUE_NOT_SET:
        out.emplace_back(std::monostate{});
        break;
    }
  }
  return out;
}

// Parses `bytes` as `message`, of a format this build reads.
template <class Message>
void Parse(std::string_view bytes, std::string_view what, Message* message) {
  if (!message->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    throw store::CorruptionError("a " + std::string(what) + " does not parse");
  }
  if (message->format() == 0) {
    throw store::CorruptionError("a " + std::string(what) + " carries no format");
  }
  if (message->format() != kFormat) {
    throw store::UnsupportedVersionError(
        "a " + std::string(what) + " of format " + std::to_string(message->format()) +
        ", which this build does not read (it reads " + std::to_string(kFormat) + ")");
  }
}

}  // namespace

std::string EncodeCommitIntent(const CommitIntent& intent) {
  v1::CommitIntentRecord record;
  record.set_format(kFormat);
  record.set_id(intent.id);
  record.set_catalog_shape(std::string(catalog::CatalogVersionName(intent.shape)));
  record.set_base_snapshot_id(intent.base.snapshot_id);
  record.set_base_schema_version(intent.base.schema_version);
  record.set_base_next_catalog_id(intent.base.next_catalog_id);
  record.set_base_next_file_id(intent.base.next_file_id);
  record.set_base_batches(intent.base_batches);
  for (const RowWrite& write : intent.writes) {
    v1::IntentRowWrite* encoded = record.add_writes();
    switch (write.kind) {
      case RowWrite::Kind::kInsert:
        encoded->set_kind(v1::IntentRowWrite::INSERT);
        break;
      case RowWrite::Kind::kUpdate:
        encoded->set_kind(v1::IntentRowWrite::UPDATE);
        break;
      case RowWrite::Kind::kDelete:
        encoded->set_kind(v1::IntentRowWrite::DELETE);
        break;
    }
    encoded->set_table(write.table);
    EncodeRow(write.before, encoded->mutable_before());
    EncodeRow(write.after, encoded->mutable_after());
  }
  return record.SerializeAsString();
}

CommitIntent DecodeCommitIntent(std::string_view bytes) {
  v1::CommitIntentRecord record;
  Parse(bytes, "commit intent", &record);
  const auto shape = catalog::ParseCatalogVersion(record.catalog_shape());
  if (!shape || catalog::CatalogVersionName(*shape) != record.catalog_shape()) {
    throw store::CorruptionError("a commit intent names the catalog shape \"" +
                                 record.catalog_shape() + "\", which is none of this build's");
  }
  CommitIntent intent;
  intent.id = record.id();
  intent.shape = *shape;
  intent.base = {record.base_snapshot_id(), record.base_schema_version(),
                 record.base_next_catalog_id(), record.base_next_file_id()};
  intent.base_batches = record.base_batches();
  intent.writes.reserve(record.writes_size());
  for (const v1::IntentRowWrite& write : record.writes()) {
    RowWrite::Kind kind;
    switch (write.kind()) {
      case v1::IntentRowWrite::INSERT:
        kind = RowWrite::Kind::kInsert;
        break;
      case v1::IntentRowWrite::UPDATE:
        kind = RowWrite::Kind::kUpdate;
        break;
      case v1::IntentRowWrite::DELETE:
        kind = RowWrite::Kind::kDelete;
        break;
      default:
        throw store::CorruptionError("a commit intent holds a row write of unknown kind " +
                                     std::to_string(write.kind()));
    }
    intent.writes.push_back(
        {kind, write.table(), DecodeRow(write.before()), DecodeRow(write.after())});
  }
  return intent;
}

std::string EncodeCommitOutcome(const CommitOutcome& outcome) {
  v1::CommitOutcomeRecord record;
  record.set_format(kFormat);
  record.set_intent_id(outcome.intent_id);
  record.set_staged_snapshot(outcome.staged_snapshot);
  record.set_landed_snapshot(outcome.landed_snapshot);
  return record.SerializeAsString();
}

CommitOutcome DecodeCommitOutcome(std::string_view bytes) {
  v1::CommitOutcomeRecord record;
  Parse(bytes, "commit outcome", &record);
  return {record.intent_id(), record.staged_snapshot(), record.landed_snapshot()};
}

store::IntentReplayer CommitIntentReplayer() {
  return [](std::unique_ptr<store::KvSnapshot> view,
            std::string_view bytes) -> std::optional<store::ReplayedIntent> {
    CommitIntent intent;
    try {
      intent = DecodeCommitIntent(bytes);
    } catch (const store::Error&) {
      return std::nullopt;  // another build's, or damaged: its writer lands it itself
    }
    auto replayed = ReplayCommitIntent(std::move(view), intent);
    if (!replayed) return std::nullopt;
    return store::ReplayedIntent{std::move(replayed->batch),
                                 EncodeCommitOutcome({intent.id, replayed->moved.staged_snapshot,
                                                      replayed->moved.landed_snapshot})};
  };
}

}  // namespace moraine::commit
