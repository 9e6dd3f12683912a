// `moraine migrate PATH`: the store-format migration (RFC 0015) from the
// command line, for a store no session has attached.
#pragma once

#include <ostream>
#include <string>

namespace moraine::cli {

// Migrates the store at `path` in place and reports the move on `out`.
// Returns the exit code; store errors are thrown (the caller prints them).
int RunMigrate(const std::string& path, std::ostream& out);

}  // namespace moraine::cli
