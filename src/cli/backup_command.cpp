#include "cli/backup_command.h"

#include "cli/progress_line.h"
#include "tools/store_backup.h"
#include "tools/tool_store.h"

namespace moraine::cli {

int RunBackup(const std::string& store, const std::string& repository, std::ostream& out) {
  auto source = tools::OpenStoreReadOnly(store);
  tools::BackupReport report;
  {
    ProgressLine progress;
    report = tools::BackupStore(
        *source->GetSnapshot(), store, repository,
        [&](uint64_t keys, uint8_t subspace) { progress.Update(keys, subspace); });
  }
  const auto& manifest = report.manifest;
  out << "backup " << manifest.id << " of " << store << " in " << repository << ": snapshot "
      << manifest.head_snapshot << ", " << manifest.keys << " keys, " << manifest.bytes
      << " bytes; copied " << report.chunks_copied << " of " << manifest.chunks.size()
      << " chunks, " << report.bytes_copied << " bytes\n";
  return 0;
}

int RunRestore(const std::string& repository, std::optional<uint64_t> id,
               const std::string& destination, std::ostream& out) {
  tools::BackupManifest manifest;
  {
    ProgressLine progress;
    manifest = tools::RestoreStore(
        repository, id, destination,
        [&](uint64_t keys, uint8_t subspace) { progress.Update(keys, subspace); });
  }
  out << "restored backup " << manifest.id << " (" << manifest.source << " at snapshot "
      << manifest.head_snapshot << ", " << manifest.keys << " keys) into " << destination << "\n";
  return 0;
}

}  // namespace moraine::cli
