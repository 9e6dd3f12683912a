#include "commit/migrations/catalog_version_raise.h"

#include "commit/rows/row_transaction.h"
#include "store/error.h"

namespace moraine::commit {

catalog::CatalogVersion ServedCatalogVersion(const CommitStore& store) {
  auto rows = BeginRowTransaction(store);
  const auto recorded = rows->RecordedCatalogVersion();
  rows->Rollback();
  return catalog::ParseCatalogVersion(recorded).value_or(catalog::kNewestCatalogVersion);
}

CatalogVersionRaise RaiseCatalogVersion(const CommitStore& store, const RaiseOptions& options) {
  auto rows = BeginRowTransaction(store);
  if (!rows->FindTable("ducklake_metadata")) {
    throw store::InvalidArgumentError(
        "the store holds no DuckLake catalog yet; attach it with DuckLake first");
  }
  const auto recorded = rows->RecordedCatalogVersion();
  const auto version = catalog::ParseCatalogVersion(recorded);
  const std::string newest(catalog::CatalogVersionName(catalog::kNewestCatalogVersion));
  if (!version) {
    throw store::UnsupportedVersionError("the store records DuckLake catalog version " + *recorded +
                                         ", which this build cannot order (it serves 1.0 and " +
                                         newest +
                                         "); refusing to change it rather than risk lowering it");
  }
  const CatalogVersionRaise raise{std::string(catalog::CatalogVersionName(*version)), newest};
  if (options.dry_run || raise.from == raise.to) {
    rows->Rollback();
    return raise;
  }
  if (!options.confirm) {
    rows->Rollback();
    throw store::InvalidArgumentError(
        "raising the DuckLake catalog version from " + raise.from + " to " + raise.to +
        " is one way: a DuckLake that only reads " + raise.from +
        " will refuse the store afterwards. Read the move with dry_run => true first, then "
        "pass confirm => true to record it");
  }
  rows->RecordCatalogVersion(raise.to);
  rows->Commit();
  return raise;
}

}  // namespace moraine::commit
