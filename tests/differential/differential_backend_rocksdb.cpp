#include "differential/differential_backend.h"

namespace moraine::differential {

std::optional<std::string> BackendUnavailable() { return std::nullopt; }

// moraine_store stays empty: the harness makes a RocksDB directory per run.
Options BackendOptions() { return OptionsFromEnvironment(); }

bool BackendRunsBothManagers() { return true; }

}  // namespace moraine::differential
