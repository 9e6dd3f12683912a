// Fuzzes opening a damaged store directory (store::RocksDbStore::Open).
//
// Once per process it builds a small valid store (store_fixture.h); each
// input is a list of mutations (overwrite, truncate, insert, remove) applied
// to a fresh copy of it. The copy is opened read-only, then read-write, and
// everything it serves is scanned and decoded: each key with Key::Decode,
// each value as its key's record. Every step must succeed or throw
// store::Error; a crash, a sanitizer report or any other exception is a
// finding.
//
// MORAINE_FUZZ_VERBOSE=1 prints each open's outcome, for characterizing a
// reproducer. (Its first finding, a log record of a recyclable type that made
// RocksDB's secondary spin forever, is refused by the store itself now:
// store/rocksdb/log_record_check.h.)

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include <google/protobuf/message.h>

#include "fuzz_contract.h"
#include "quiet_protobuf.h"
#include "store/key.h"
#include "store/kv_store.h"
#include "store/record_types.h"
#include "store/rocksdb/rocksdb_store.h"
#include "store/value_frame.h"
#include "store_fixture.h"
#include "util/temp_dir.h"

using moraine::fuzz::Decodes;
namespace fs = std::filesystem;
namespace store = moraine::store;

namespace {

struct Dirs {
  fs::path root;
  fs::path pristine;
  fs::path work;
};

Dirs* dirs = nullptr;

// Scratch space on tmpfs where there is one: opens sync their files.
fs::path ScratchBase() {
  std::error_code error;
  if (const char* chosen = std::getenv("MORAINE_FUZZ_TMPDIR")) return chosen;
  if (fs::is_directory("/dev/shm", error)) return "/dev/shm";
  return fs::temp_directory_path();
}

void RemoveScratch() {
  std::error_code ignored;
  if (dirs != nullptr) fs::remove_all(dirs->root, ignored);
}

bool Flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) == "1";
}

// Returns how many entries the store serves.
size_t ScanAndDecode(store::KvStore& kv) {
  size_t entries = 0;
  auto snapshot = kv.GetSnapshot();
  for (auto it = snapshot->Scan(store::KeyRange{}); it->Valid(); it->Next()) {
    ++entries;
    std::optional<store::Key> key;
    if (!Decodes([&] { key = store::Key::Decode(it->key()); })) continue;
    auto record = store::NewRecord(key->kind());
    Decodes([&] { store::UnframeValue(key->kind(), it->value(), record.get()); });
  }
  return entries;
}

void OpenAndScan(bool read_only) {
  static const bool verbose = Flag("MORAINE_FUZZ_VERBOSE");
  size_t entries = 0;
  const std::optional<std::string> error = moraine::fuzz::TypedError([&] {
    auto kv = store::RocksDbStore::Open(
        {.location = dirs->work.string(), .read_only = read_only, .create_if_missing = false});
    entries = ScanAndDecode(*kv);
    if (!read_only) {
      // A write after recovery, then a fresh view of it.
      store::WriteBatch batch;
      batch.Put(std::string("\x01\x02", 2), "x");
      kv->Write(batch);
      ScanAndDecode(*kv);
    }
  });
  if (verbose) {
    std::fprintf(
        stderr, "%s open: %s\n", read_only ? "read-only" : "read-write",
        error ? error->c_str() : ("serves " + std::to_string(entries) + " entries").c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  moraine::fuzz::QuietProtobuf();
  std::string pattern;
  try {
    pattern = moraine::util::CreateTempDir("moraine-fuzz-store-", ScratchBase()).string();
  } catch (const std::system_error&) {
    moraine::fuzz::Fail("cannot create a scratch directory");
  }
  dirs = new Dirs{pattern, fs::path(pattern) / "pristine", fs::path(pattern) / "work"};
  moraine::fuzz::BuildSampleStore(dirs->pristine);
  std::atexit(RemoveScratch);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fs::remove_all(dirs->work);
  fs::copy(dirs->pristine, dirs->work, fs::copy_options::recursive);
  fs::remove(dirs->work / "LOCK");
  moraine::fuzz::ApplyMutations(dirs->work, {data, size});
  OpenAndScan(/*read_only=*/true);
  OpenAndScan(/*read_only=*/false);
  return 0;
}
