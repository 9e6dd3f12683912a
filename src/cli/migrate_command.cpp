#include "cli/migrate_command.h"

#include "commit/migrations/store_format.h"

namespace moraine::cli {

int RunMigrate(const std::string& path, std::ostream& out) {
  const commit::MigrationReport report = commit::MigrateStore(path);
  if (report.migrated()) {
    out << "migrated " << path << " from store format " << report.from << " to " << report.to
        << "\n";
  } else if (report.summarized) {
    out << "summarized the inlined row batches and data files of " << path << " (store format "
        << report.to << ")\n";
  } else {
    out << path << " is already at store format " << report.to << "; nothing to do\n";
  }
  return 0;
}

}  // namespace moraine::cli
