// Protobuf logs every rejected string field (invalid UTF-8) to stderr. The
// fuzzers feed it such bytes thousands of times a second; the typed error
// moraine raises is what they check, so the log is dropped.
#pragma once

#include <google/protobuf/stubs/logging.h>

namespace moraine::fuzz {

inline void QuietProtobuf() { google::protobuf::SetLogHandler(nullptr); }

}  // namespace moraine::fuzz
