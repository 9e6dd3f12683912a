#include "cli/repair_command.h"

#include "store/rocksdb/rocksdb_store.h"

namespace moraine::cli {

int RunRepair(const std::string& path, std::ostream& out) {
  store::RocksDbStore::Repair(path);
  out << "repaired " << path
      << ": its manifest was rebuilt from the table and log files that still read\n";
  return 0;
}

}  // namespace moraine::cli
