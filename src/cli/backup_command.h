// `moraine backup STORE REPOSITORY` and `moraine restore REPOSITORY DEST`
// (tools/store_backup.h) on the command line. A backup opens the store
// read-only, so it runs beside a live writer; both show a progress line on
// a terminal and print what they did.
//
// Thread-safety: each call opens what it needs and writes to `out` alone.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace moraine::cli {

int RunBackup(const std::string& store, const std::string& repository, std::ostream& out);
// `id` nullopt: the repository's newest backup.
int RunRestore(const std::string& repository, std::optional<uint64_t> id,
               const std::string& destination, std::ostream& out);

}  // namespace moraine::cli
