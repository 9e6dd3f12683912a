#include "commit/catalog_caching_store.h"

#include "commit/store_records.h"

namespace moraine::commit {

CatalogCachingStore::CatalogCachingStore(std::unique_ptr<store::KvStore> wrapped)
    : wrapped_(std::move(wrapped)) {}

std::unique_ptr<store::KvSnapshot> CatalogCachingStore::GetSnapshot() {
  return wrapped_->GetSnapshot();
}

void CatalogCachingStore::Write(const store::WriteBatch& batch) {
  head_catalog_.Advance(std::nullopt, batch);  // no base head: drops the cache
  wrapped_->Write(batch);
}

bool CatalogCachingStore::WriteIfHeadUnchanged(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const store::WriteBatch& batch) {
  bool landed = false;
  try {
    landed = wrapped_->WriteIfHeadUnchanged(head_key, expected_head_value, batch);
  } catch (...) {
    // Whether it landed is not known here: forget what the cache holds.
    head_catalog_.Advance(std::nullopt, batch);
    throw;
  }
  if (landed) {
    head_catalog_.Advance(head_key == HeadKey() ? expected_head_value : std::nullopt, batch);
  }
  return landed;
}

bool CatalogCachingStore::read_only() const { return wrapped_->read_only(); }

const std::string& CatalogCachingStore::location() const { return wrapped_->location(); }

}  // namespace moraine::commit
