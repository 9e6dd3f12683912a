#include "duckdb_shim/etcd_secret.h"

#include <string_view>

#include "duckdb/catalog/catalog_transaction.hpp"
#include "duckdb/common/exception.hpp"
#include "duckdb/main/config.hpp"
#include "duckdb/main/secret/secret.hpp"
#include "duckdb/main/secret/secret_manager.hpp"
#include "duckdb_shim/duckdb_release.h"
#include "store/etcd/etcd_location.h"

namespace moraine::duckdb_shim {
namespace {

constexpr const char* kType = "moraine_etcd";
constexpr const char* kProvider = "config";
duckdb::unique_ptr<duckdb::BaseSecret> CreateEtcdSecret(duckdb::ClientContext&,
                                                        duckdb::CreateSecretInput& input) {
  auto scope = input.scope;
  const auto endpoints = input.options.find("endpoints");
  if (endpoints != input.options.end()) {
    if (!scope.empty()) {
      throw duckdb::InvalidInputException(
          "a moraine_etcd secret takes ENDPOINTS or SCOPE, not both");
    }
    const std::string list = endpoints->second.ToString();
    for (std::string_view scheme :
         {store::EtcdLocation::kScheme, store::EtcdLocation::kTlsScheme}) {
      scope.push_back(std::string(scheme) + list + "/");
    }
  }
  if (scope.empty()) {
    scope = {std::string(store::EtcdLocation::kScheme),
             std::string(store::EtcdLocation::kTlsScheme)};
  }
  auto secret =
      duckdb::make_uniq<duckdb::KeyValueSecret>(scope, input.type, input.provider, input.name);
  for (std::string_view setting : store::EtcdSecurity::kSettingNames) {
    secret->TrySetValue(AsName(std::string(setting)), input);
  }
  if (endpoints != input.options.end()) secret->secret_map[AsName("endpoints")] = endpoints->second;
  secret->redact_keys = {"password"};
  return secret;
}

}  // namespace

void RegisterEtcdSecretType(duckdb::DBConfig& config) {
  duckdb::SecretType type;
  type.name = kType;
  type.deserializer = duckdb::KeyValueSecret::Deserialize<duckdb::KeyValueSecret>;
  type.default_provider = kProvider;
  type.extension = "moraine";
  config.secret_manager->RegisterSecretType(type);

  duckdb::CreateSecretFunction function;
  function.secret_type = kType;
  function.provider = kProvider;
  function.function = CreateEtcdSecret;
  function.named_parameters[AsName("endpoints")] = duckdb::LogicalType::VARCHAR;
  for (std::string_view setting : store::EtcdSecurity::kSettingNames) {
    function.named_parameters[AsName(std::string(setting))] = duckdb::LogicalType::VARCHAR;
  }
  config.secret_manager->RegisterSecretFunction(std::move(function),
                                                duckdb::OnCreateConflict::ERROR_ON_CONFLICT);
}

std::optional<store::EtcdSecurity> LookupEtcdSecurity(duckdb::ClientContext& context,
                                                      const std::string& location) {
  if (!store::EtcdLocation::Matches(location)) return std::nullopt;
  auto& manager = duckdb::SecretManager::Get(context);
  auto transaction = duckdb::CatalogTransaction::GetSystemCatalogTransaction(context);
  auto match = manager.LookupSecret(transaction, location, kType);
  if (!match.HasMatch()) return std::nullopt;
  const auto& secret = dynamic_cast<const duckdb::KeyValueSecret&>(match.GetSecret());
  return store::EtcdSecurity::FromSettings([&secret](std::string_view name) {
    duckdb::Value value;
    return secret.TryGetValue(AsName(std::string(name)), value) && !value.IsNull()
               ? value.ToString()
               : std::string();
  });
}

}  // namespace moraine::duckdb_shim
