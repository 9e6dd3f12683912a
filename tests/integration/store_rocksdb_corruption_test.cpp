// A byte flipped inside a stored value on disk is a typed error on read of
// that value, and the rest of the store stays readable.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "store/error.h"
#include "store/key.h"
#include "store/records.pb.h"
#include "store/rocksdb/rocksdb_store.h"
#include "store/value_frame.h"
#include "support/temp_dir.h"

namespace moraine::store {
namespace {

// Values larger than the store's 16 KiB data block, so each sits in a block
// of its own (the rest of the store stays readable only where a damaged
// block holds nothing else), and random, so their bytes are findable in a
// table file however it is compressed.
std::string RandomBytes(std::mt19937_64& rng, size_t size) {
  std::string bytes(size, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(StoreCorruption, FlippedValueByteOnDiskIsATypedError) {
  test::TempDir dir;
  KvOptions options;
  options.location = dir.path("lake.moraine");
  std::mt19937_64 rng(42);
  constexpr uint64_t kTables = 8;
  constexpr uint64_t kVictim = 5;
  std::string victim_payload;
  {
    auto store = RocksDbStore::Open(options);
    WriteBatch batch;
    for (uint64_t t = 0; t < kTables; ++t) {
      v1::ChangelogRecord record;
      record.add_keys(RandomBytes(rng, 20000));
      if (t == kVictim) victim_payload = record.keys(0);
      batch.Put(Key::Current(Kind::kTable, {t}).Encode(), FrameValue(Kind::kChangelog, record));
    }
    store->Write(batch);
    store->Flush();
  }

  // Find the victim's bytes in a table file and flip one in the middle.
  const std::string needle = victim_payload.substr(4000, 64);
  bool flipped = false;
  for (const auto& entry : std::filesystem::directory_iterator(options.location)) {
    if (entry.path().extension() != ".sst") continue;
    std::string contents = ReadFile(entry.path());
    const size_t at = contents.find(needle);
    if (at == std::string::npos) continue;
    ASSERT_EQ(contents.find(needle, at + 1), std::string::npos) << "needle is ambiguous";
    contents[at + 10] = static_cast<char>(contents[at + 10] ^ 0x5A);
    WriteFile(entry.path(), contents);
    flipped = true;
  }
  ASSERT_TRUE(flipped) << "the value's bytes were not found in any .sst file";

  auto store = RocksDbStore::Open(options);
  auto snapshot = store->GetSnapshot();
  EXPECT_THROW(snapshot->Get(Key::Current(Kind::kTable, {kVictim}).Encode()), CorruptionError);
  for (uint64_t t = 0; t < kTables; ++t) {
    if (t == kVictim) continue;
    auto value = snapshot->Get(Key::Current(Kind::kTable, {t}).Encode());
    ASSERT_TRUE(value.has_value()) << t;
    v1::ChangelogRecord record;
    EXPECT_NO_THROW(UnframeValue(Kind::kChangelog, *value, &record)) << t;
  }
  // A scan across the damaged block fails loudly rather than ending early.
  EXPECT_THROW(
      {
        for (auto it = snapshot->Scan(PrefixRange(Subspace::kCurrent, Kind::kTable)); it->Valid();
             it->Next()) {
        }
      },
      CorruptionError);
  // A scan that stays clear of it still works.
  size_t count = 0;
  for (auto it = snapshot->Scan(PrefixRange(Subspace::kCurrent, Kind::kTable, {kVictim + 1}));
       it->Valid(); it->Next()) {
    ++count;
  }
  EXPECT_EQ(count, 1u);
  // And the store still takes writes.
  WriteBatch batch;
  batch.Put(Key::Current(Kind::kTable, {100}).Encode(), "fine");
  store->Write(batch);
  EXPECT_EQ(GetLatest(*store, Key::Current(Kind::kTable, {100}).Encode()), "fine");
}

TEST(StoreCorruption, ValueOfTheWrongKindIsATypedError) {
  KvOptions options;
  options.location = "memory://";
  auto store = OpenKvStore(options);
  v1::ViewRecord view;
  view.set_view_id(1);
  view.set_sql("select 1");
  const std::string key = Key::Current(Kind::kTable, {1}).Encode();
  WriteBatch batch;
  batch.Put(key, FrameValue(Kind::kView, view));  // a view's value under a table key
  batch.Put(Key::Current(Kind::kTable, {2}).Encode(), "not a framed value");
  store->Write(batch);
  v1::TableRecord table;
  EXPECT_THROW(UnframeValue(Kind::kTable, *GetLatest(*store, key), &table), CorruptionError);
  EXPECT_THROW(UnframeValue(Kind::kTable,
                            *GetLatest(*store, Key::Current(Kind::kTable, {2}).Encode()), &table),
               CorruptionError);
}

}  // namespace
}  // namespace moraine::store
