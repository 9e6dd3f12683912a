#include "store/store_registry.h"

#include <filesystem>
#include <string_view>

#include "store/error.h"
#include "store/etcd_location.h"

namespace moraine::store {
namespace {

constexpr std::string_view kMemoryScheme = "memory://";

// One entry per store: the store layer decides whether the location may be
// created (only when absent or empty); here the path only names the entry.
std::string Canonical(const std::string& location) {
  // Memory and etcd locations name no file: they pass unchanged.
  if (location.starts_with(kMemoryScheme) || EtcdLocation::Matches(location)) return location;
  if (location.empty()) throw InvalidArgumentError("a moraine store location must not be empty");
  return std::filesystem::weakly_canonical(std::filesystem::absolute(location)).string();
}

std::shared_ptr<KvStore> Opened(const std::string& location, bool read_only) {
  return std::shared_ptr<KvStore>(OpenKvStore({.location = location, .read_only = read_only}));
}

}  // namespace

StoreRegistry& StoreRegistry::Instance() {
  static auto* registry = new StoreRegistry();  // never destroyed: outlives every user
  return *registry;
}

std::shared_ptr<KvStore> StoreRegistry::Open(const std::string& path, bool read_only) {
  const auto location = Canonical(path);
  // A private in-memory store is, by definition, never shared.
  if (location == kMemoryScheme) return Opened(location, read_only);
  std::lock_guard<std::mutex> lock(mutex_);
  auto& handles = handles_[location];
  if (auto writer = handles.read_write.lock()) return writer;
  if (read_only) {
    if (auto reader = handles.read_only.lock()) return reader;
    auto reader = Opened(location, true);
    handles.read_only = reader;
    return reader;
  }
  auto writer = Opened(location, false);
  handles.read_write = writer;
  return writer;
}

}  // namespace moraine::store
