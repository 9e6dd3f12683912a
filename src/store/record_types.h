#pragma once

// Which records.proto message each key kind stores. One table, so the row
// mapping (catalog/row_mapping.h), `moraine verify` (tools/store_verifier.h)
// and tests can decode any value by its key alone.

#include <memory>

#include "store/key_kind.h"

namespace google::protobuf {
class Message;
}

namespace moraine::store {

// The default instance of the message stored under `kind` (never null for a
// valid Kind).
const google::protobuf::Message& RecordPrototype(Kind kind);

// A fresh, empty message of the type stored under `kind`.
std::unique_ptr<google::protobuf::Message> NewRecord(Kind kind);

}  // namespace moraine::store
