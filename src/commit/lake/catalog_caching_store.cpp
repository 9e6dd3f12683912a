#include "commit/lake/catalog_caching_store.h"

#include "commit/lake/store_records.h"

namespace moraine::commit {

CatalogCachingStore::CatalogCachingStore(std::unique_ptr<store::KvStore> wrapped)
    : wrapped_(std::move(wrapped)) {}

std::unique_ptr<store::KvSnapshot> CatalogCachingStore::GetSnapshot() {
  return wrapped_->GetSnapshot();
}

void CatalogCachingStore::Write(const store::WriteBatch& batch) {
  head_catalog_.Forget();  // no base head to advance from
  wrapped_->Write(batch);
}

std::unique_ptr<store::KvSnapshot> CatalogCachingStore::GetSnapshotForCommit() {
  return wrapped_->GetSnapshotForCommit();
}

// Forgets the cached catalog if the batch it advanced to never becomes durable.
class CatalogCachingStore::CacheDroppingLandedWrite final : public store::LandedWrite {
 public:
  CacheDroppingLandedWrite(std::unique_ptr<store::LandedWrite> landed, HeadCatalogCache& cache)
      : landed_(std::move(landed)), cache_(cache) {}
  void AwaitDurable() override {
    try {
      landed_->AwaitDurable();
    } catch (...) {
      cache_.Forget();
      throw;
    }
  }

 private:
  std::unique_ptr<store::LandedWrite> landed_;
  HeadCatalogCache& cache_;
};

bool CatalogCachingStore::WriteIfHeadUnchanged(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const store::WriteBatch& batch) {
  auto landed = LandIfHeadUnchanged(head_key, expected_head_value, batch);
  if (!landed) return false;
  landed->AwaitDurable();
  return true;
}

std::unique_ptr<store::LandedWrite> CatalogCachingStore::LandIfHeadUnchanged(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const store::WriteBatch& batch) {
  std::unique_ptr<store::LandedWrite> landed;
  try {
    landed = wrapped_->LandIfHeadUnchanged(head_key, expected_head_value, batch);
  } catch (...) {
    head_catalog_.Forget();  // whether it landed is not known here
    throw;
  }
  return Landed(std::move(landed), head_key, expected_head_value, batch, /*advance=*/true);
}

std::unique_ptr<store::LandedWrite> CatalogCachingStore::LandOffered(
    std::string_view head_key, const std::optional<std::string>& expected_head_value,
    const store::WriteBatch& batch, store::CommitOffer& offer) {
  std::unique_ptr<store::LandedWrite> landed;
  try {
    landed = wrapped_->LandOffered(head_key, expected_head_value, batch, offer);
  } catch (...) {
    head_catalog_.Forget();
    throw;
  }
  // Another writer landed it: the cache learns that head as any other
  // writer's, when it reads it.
  if (offer.outcome) return landed;
  return Landed(std::move(landed), head_key, expected_head_value, batch, !offer.landed_others);
}

std::unique_ptr<store::LandedWrite> CatalogCachingStore::Landed(
    std::unique_ptr<store::LandedWrite> landed, std::string_view head_key,
    const std::optional<std::string>& expected_head_value, const store::WriteBatch& batch,
    bool advance) {
  if (!landed) return nullptr;
  if (head_key == HeadKey()) {
    const uint64_t landed_on =
        (expected_head_value ? DecodeHeadBatchCount(*expected_head_value) : 0) + 1;
    uint64_t newest = newest_base_landed_on_.load(std::memory_order_relaxed);
    while (newest < landed_on && !newest_base_landed_on_.compare_exchange_weak(newest, landed_on)) {
    }
    if (advance) {
      head_catalog_.Advance(expected_head_value, batch);
    } else {
      head_catalog_.Forget();
    }
  } else {
    head_catalog_.Forget();  // anchored elsewhere: not a commit of the catalog
  }
  return std::make_unique<CacheDroppingLandedWrite>(std::move(landed), head_catalog_);
}

bool CatalogCachingStore::LandedOn(uint64_t base_batch_count) const {
  return newest_base_landed_on_.load(std::memory_order_acquire) >= base_batch_count + 1;
}

bool CatalogCachingStore::read_only() const { return wrapped_->read_only(); }

const std::string& CatalogCachingStore::location() const { return wrapped_->location(); }

}  // namespace moraine::commit
