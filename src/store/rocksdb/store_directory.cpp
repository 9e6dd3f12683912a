#include "store/rocksdb/store_directory.h"

#include <system_error>

#include "store/error.h"
#include "store/rocksdb/high_water_mark.h"

namespace moraine::store {
namespace {

bool IsNumbered(std::string_view name, std::string_view suffix) {
  if (!name.ends_with(suffix) || name.size() == suffix.size()) return false;
  for (char c : name.substr(0, name.size() - suffix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Files that only a moraine store holds and that carry its contents or
// its high-water mark: their presence without CURRENT means a store lost its
// CURRENT file.
bool IsDatabaseFile(std::string_view name) {
  return name.starts_with("MANIFEST-") || name.starts_with("OPTIONS-") || name == "IDENTITY" ||
         name == kHighWaterFileName || IsNumbered(name, ".sst") || IsNumbered(name, ".log") ||
         IsNumbered(name, ".blob");
}

}  // namespace

DirectoryInspection InspectStoreDirectory(const std::filesystem::path& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) return {DirectoryState::kAbsent, {}};
  if (error) throw IoError("cannot inspect '" + path.string() + "': " + error.message());
  if (status.type() != std::filesystem::file_type::directory) {
    return {DirectoryState::kNotADirectory, {}};
  }
  std::filesystem::directory_iterator entries(path, error);
  if (error) throw IoError("cannot read directory '" + path.string() + "': " + error.message());
  std::string database_file, other_file;
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (name == "CURRENT") return {DirectoryState::kStore, {}};
    if (IsDatabaseFile(name)) {
      if (database_file.empty() || name < database_file) database_file = name;
    } else if (other_file.empty() || name < other_file) {
      other_file = name;
    }
  }
  if (!database_file.empty()) return {DirectoryState::kMissingCurrent, database_file};
  if (!other_file.empty()) return {DirectoryState::kForeign, other_file};
  return {DirectoryState::kEmpty, {}};
}

std::string RefusalMessage(const DirectoryInspection& inspection, const std::string& location) {
  switch (inspection.state) {
    case DirectoryState::kMissingCurrent:
      return "moraine store at '" + location +
             "' is damaged: its CURRENT file is missing (the store still holds " +
             inspection.example_file +
             " and its other files); nothing was changed. Restore CURRENT from a backup, or "
             "rebuild it with `moraine repair " +
             location + "`";
    case DirectoryState::kForeign:
      return "'" + location + "' is not a moraine store: the directory is not empty (it holds " +
             inspection.example_file + "); a store is created only in an absent or empty directory";
    case DirectoryState::kNotADirectory:
      return "'" + location + "' is not a moraine store: it is not a directory";
    case DirectoryState::kAbsent:
    case DirectoryState::kEmpty:
    case DirectoryState::kStore:
      break;
  }
  return {};
}

}  // namespace moraine::store
