#include "tools/rocksdb_figures.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <system_error>

#include "store/error.h"
#include "util/temp_dir.h"

namespace moraine::tools {
namespace {

// Properties that say where the bytes are; each is a number.
constexpr const char* kProperties[] = {
    "rocksdb.estimate-num-keys",       "rocksdb.estimate-live-data-size",
    "rocksdb.total-sst-files-size",    "rocksdb.live-sst-files-size",
    "rocksdb.cur-size-all-mem-tables", "rocksdb.num-live-versions",
};

// A scratch directory for the secondary instance's own log, removed after.
std::unique_ptr<util::TempDir> NewScratchDir() {
  try {
    return std::make_unique<util::TempDir>("moraine-inspect-");
  } catch (const std::system_error&) {
    throw store::IoError("cannot create a scratch directory");
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> RocksDbFigures(const std::string& path) {
  std::vector<std::pair<std::string, std::string>> figures;
  if (path.starts_with("memory://")) return figures;
  const auto scratch = NewScratchDir();
  rocksdb::Options options;
  options.max_open_files = -1;  // required by secondary instances
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status =
      rocksdb::DB::OpenAsSecondary(options, path, scratch->root().string(), &raw);
  if (!status.ok()) throw store::IoError("cannot read RocksDB's figures: " + status.ToString());
  std::unique_ptr<rocksdb::DB> db(raw);
  db->TryCatchUpWithPrimary();
  for (const char* property : kProperties) {
    std::string value;
    if (db->GetProperty(property, &value)) figures.emplace_back(property, value);
  }
  db.reset();

  uint64_t table_bytes = 0, log_bytes = 0, manifest_bytes = 0, other_bytes = 0, table_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(path)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    const uint64_t size = entry.file_size();
    if (name.ends_with(".sst")) {
      table_bytes += size;
      ++table_files;
    } else if (name.ends_with(".log")) {
      log_bytes += size;
    } else if (name.starts_with("MANIFEST-")) {
      manifest_bytes += size;
    } else {
      other_bytes += size;
    }
  }
  figures.emplace_back("files.table_files", std::to_string(table_files));
  figures.emplace_back("files.table_bytes", std::to_string(table_bytes));
  figures.emplace_back("files.wal_bytes", std::to_string(log_bytes));
  figures.emplace_back("files.manifest_bytes", std::to_string(manifest_bytes));
  figures.emplace_back("files.other_bytes", std::to_string(other_bytes));
  return figures;
}

}  // namespace moraine::tools
