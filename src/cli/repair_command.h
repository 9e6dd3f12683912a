// `moraine repair PATH`: RocksDB's repair of a store that Open refuses as
// damaged (a lost CURRENT, a damaged log record), for a store no session has
// attached. It salvages what still reads; it cannot restore what was lost.
#pragma once

#include <ostream>
#include <string>

namespace moraine::cli {

// Repairs the store at `path` in place and reports on `out`. Returns the exit
// code; store errors are thrown (the caller prints them).
int RunRepair(const std::string& path, std::ostream& out);

}  // namespace moraine::cli
