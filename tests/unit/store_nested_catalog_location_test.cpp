// Where a store keeps the catalog of a further metadata schema
// (store/nested_catalog_location.h): one location per name, case-insensitive,
// never inside the first catalog's key range, refused where nothing could
// name it again.
#include "store/nested_catalog_location.h"

#include <gtest/gtest.h>

#include "store/error.h"

namespace moraine::store {
namespace {

TEST(NestedCatalogLocation, ADirectoryStoreNestsItsSchemasInASubdirectory) {
  EXPECT_EQ(NestedCatalogLocation("/data/lake.moraine", "metadata_s2"),
            "/data/lake.moraine/schemas/metadata_s2");
}

TEST(NestedCatalogLocation, NamesAreEncodedCaseInsensitivelyAndReversibly) {
  EXPECT_EQ(NestedCatalogLocation("/l", "Metadata_S2"), NestedCatalogLocation("/l", "metadata_s2"));
  EXPECT_EQ(NestedCatalogLocation("/l", "a b/../c"), "/l/schemas/a-20b-2f-2e-2e-2fc");
  EXPECT_NE(NestedCatalogLocation("/l", "a-b"), NestedCatalogLocation("/l", "a_b"));
}

TEST(NestedCatalogLocation, AnEtcdLakeNestsUnderItsPrefixOutsideItsKeyRanges) {
  // "p/s/..." starts with "p/", so a role on the lake's prefix covers it, and
  // with neither "p/k/" nor the marker, intent or tokens: no scan of p's
  // keys reaches it.
  EXPECT_EQ(NestedCatalogLocation("etcd://127.0.0.1:2379/p", "S"), "etcd://127.0.0.1:2379/p/s/s");
  EXPECT_EQ(NestedCatalogLocation("etcds://127.0.0.1:2379/p", "s"), "etcds://127.0.0.1:2379/p/s/s");
  EXPECT_EQ(LegacyNestedCatalogLocation("etcd://127.0.0.1:2379/p", "s"),
            "etcd://127.0.0.1:2379/p.schemas.s");
  EXPECT_EQ(LegacyNestedCatalogLocation("/l", "s"), std::nullopt);
  EXPECT_THROW(NestedCatalogLocation("etcd://127.0.0.1:2379/p", std::string(200, 'x')),
               InvalidArgumentError);
}

TEST(NestedCatalogLocation, ANamedMemoryStoreNestsByNameAndAPrivateOneRefuses) {
  EXPECT_EQ(NestedCatalogLocation("memory://lake", "s"), "memory://lake/schemas/s");
  try {
    NestedCatalogLocation("memory://", "s");
    FAIL() << "a private memory store nested a catalog";
  } catch (const InvalidArgumentError& error) {
    EXPECT_NE(std::string(error.what()).find("memory://<name>"), std::string::npos) << error.what();
  }
  EXPECT_THROW(NestedCatalogLocation("/l", ""), InvalidArgumentError);
}

}  // namespace
}  // namespace moraine::store
