#include "duckdb_shim/default_data_path.h"

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

#include "duckdb/catalog/catalog.hpp"
#include "duckdb/common/string_util.hpp"
#include "duckdb/main/attached_database.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/parser/parsed_data/attach_info.hpp"
#include "duckdb/planner/extension_callback.hpp"
#include "duckdb/storage/storage_extension.hpp"
#include "store/etcd/etcd_location.h"

namespace moraine::duckdb_shim {
namespace {

constexpr std::string_view kMoraineScheme = "moraine:";
constexpr std::string_view kMemoryScheme = "memory://";
constexpr std::string_view kDataPathOption = "data_path";

// DuckLake's own attach function, which the wrapper calls on.
std::atomic<duckdb::attach_function_t> ducklake_attach{nullptr};

bool HasOption(const duckdb::AttachOptions& options, std::string_view name) {
  for (const auto& [key, value] : options.options) {
    if (duckdb::StringUtil::CIEquals(key, std::string(name))) return true;
  }
  return false;
}

// A local location where the store will be created: nothing there, or an
// empty directory (where a store may be created, store_directory.h).
bool IsLocalPath(const std::string& location) {
  return !location.empty() && !location.starts_with(kMemoryScheme) &&
         !store::EtcdLocation::Matches(location);
}

bool HoldsNoStoreYet(const std::string& location) {
  std::error_code error;
  const auto status = std::filesystem::status(location, error);
  if (status.type() == std::filesystem::file_type::not_found) return true;
  if (error || !std::filesystem::is_directory(status)) return false;
  return std::filesystem::is_empty(location, error) && !error;
}

duckdb::unique_ptr<duckdb::Catalog> AttachWithDefaultDataPath(
    duckdb::optional_ptr<duckdb::StorageExtensionInfo> storage_info, duckdb::ClientContext& context,
    duckdb::AttachedDatabase& db, const duckdb::string& name, duckdb::AttachInfo& info,
    duckdb::AttachOptions& options) {
  const std::string_view path = info.path;
  if (path.starts_with(kMoraineScheme) && !HasOption(options, kDataPathOption)) {
    std::string location(path.substr(kMoraineScheme.size()));
    if (!IsLocalPath(location)) location.clear();
    while (location.size() > 1 && location.back() == '/') location.pop_back();
    if (!location.empty() && HoldsNoStoreYet(location)) {
      options.options[std::string(kDataPathOption)] = duckdb::Value(location + ".files");
    }
  }
  return ducklake_attach.load()(storage_info, context, db, name, info, options);
}

void WrapDuckLakeAttach(duckdb::DBConfig& config) {
  auto ducklake = duckdb::StorageExtension::Find(config, "ducklake");
  if (!ducklake || !ducklake->attach || ducklake->attach == AttachWithDefaultDataPath) return;
  duckdb::attach_function_t expected = nullptr;
  if (!ducklake_attach.compare_exchange_strong(expected, ducklake->attach) &&
      expected != ducklake->attach) {
    return;  // another DuckLake binary in this process: leave it as it is
  }
  ducklake->attach = AttachWithDefaultDataPath;
}

class WrapWhenLoaded final : public duckdb::ExtensionCallback {
 public:
  void OnExtensionLoaded(duckdb::DatabaseInstance& db, const duckdb::string&) override {
    WrapDuckLakeAttach(duckdb::DBConfig::GetConfig(db));
  }
};

}  // namespace

void ProvideDefaultDataPath(duckdb::DBConfig& config) {
  duckdb::ExtensionCallback::Register(config, duckdb::make_shared_ptr<WrapWhenLoaded>());
  WrapDuckLakeAttach(config);
}

}  // namespace moraine::duckdb_shim
