// Valid records and keys of every kind, for seed corpora and the store
// fixture: every scalar field of a record is set (so the seeds reach every
// field's parse path) and every repeated message field holds one element.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <google/protobuf/message.h>

#include "store/key.h"

namespace moraine::fuzz {

// A record of `kind` whose every field is derived from `n`.
std::unique_ptr<google::protobuf::Message> SampleRecord(store::Kind kind, uint64_t n);

// The keys of `kind` with every component `n`: its home-subspace key and, for
// a versioned kind, its history key (end snapshot n + 1).
std::vector<store::Key> SampleKeys(store::Kind kind, uint64_t n);

}  // namespace moraine::fuzz
