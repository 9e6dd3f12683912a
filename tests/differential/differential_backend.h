// The store a differential test binary runs moraine's lake on, chosen when
// the binary is linked: differential_backend_rocksdb.cpp (a RocksDB
// directory per run) or differential_backend_etcd.cpp (a fresh prefix per run
// in one 3-member etcd cluster on loopback, started on first use and stopped
// when the binary exits). The same scripts and seeds run on either.
//
// Call from the test's main thread (etcd members die with the thread that
// started them).
#pragma once

#include <optional>
#include <string>

#include "differential/differential_harness.h"

namespace moraine::differential {

// Why this backend cannot run here (the test skips), or nothing.
std::optional<std::string> BackendUnavailable();

// OptionsFromEnvironment() with a fresh, empty moraine store of this backend.
Options BackendOptions();

// Whether scripts and seeds run with both metadata managers (native and
// DuckLake's SQL) on this backend, or with the native one, the default, only.
bool BackendRunsBothManagers();

}  // namespace moraine::differential
