// Writes small valid seed inputs for every fuzz target into
// <out>/<target>/, so each run starts from inputs that reach deep instead of
// from random bytes. Deterministic: the same build writes the same files.
//
//   fuzz_seeds <out> [target]

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/catalog_version.h"
#include "catalog/row_mapping.h"
#include "sample_records.h"
#include "store/key_kind.h"
#include "store/value_frame.h"
#include "store_fixture.h"

namespace fs = std::filesystem;
namespace store = moraine::store;
namespace catalog = moraine::catalog;
using moraine::fuzz::MutationOp;

namespace {

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void KeySeeds(const fs::path& dir) {
  for (const store::KindInfo& info : store::kKindTable) {
    for (const store::Key& key : moraine::fuzz::SampleKeys(info.kind, 3)) {
      std::string name = key.ToString();  // "current/column(3,3)": no '/' in a file name
      std::replace(name.begin(), name.end(), '/', '.');
      Write(dir, name, key.Encode());
    }
  }
}

void ValueFrameSeeds(const fs::path& dir) {
  for (size_t i = 0; i < store::kKindTable.size(); ++i) {
    const store::Kind kind = store::kKindTable[i].kind;
    const std::string name(store::kKindTable[i].name);
    const std::string value = store::FrameValue(kind, *moraine::fuzz::SampleRecord(kind, 5));
    // As stored, and sealed by the harness (version, kind, payload).
    Write(dir, name, std::string(1, static_cast<char>(i)) + value);
    Write(dir, name + ".sealed",
          std::string(1, static_cast<char>(0x80 | i)) + value.substr(4, 2) +
              value.substr(store::kValueHeaderSize));
  }
}

void RowMappingSeeds(const fs::path& dir) {
  size_t selector = 0;
  for (auto version : {catalog::CatalogVersion::kV1_0, catalog::CatalogVersion::kV1_1}) {
    for (const catalog::RowMapping& mapping : catalog::RowMappings(version)) {
      const std::string payload =
          moraine::fuzz::SampleRecord(mapping.kind(), 9)->SerializeAsString();
      Write(dir,
            std::string(catalog::CatalogVersionName(version)) + "." +
                std::string(mapping.table().name),
            std::string(1, static_cast<char>(selector++)) + payload);
    }
  }
  for (store::Kind kind : {store::Kind::kInlinedRowBatch, store::Kind::kInlinedDelete,
                           store::Kind::kInlinedTableShape}) {
    Write(dir, std::string(store::GetKindInfo(kind).name),
          std::string(1, static_cast<char>(selector++)) +
              moraine::fuzz::SampleRecord(kind, 9)->SerializeAsString());
  }
}

void StoreOpenSeeds(const fs::path& dir) {
  Write(dir, "unchanged", "");
  // One of each mutation on each of the first eight files (a store has
  // about six: CURRENT, IDENTITY, MANIFEST, OPTIONS, a table file, the log).
  for (uint8_t file = 0; file < 8; ++file) {
    const std::string stem = "file" + std::to_string(file);
    Write(dir, stem + ".overwrite",
          EncodeMutation(file, MutationOp::kOverwrite, 40, std::string(4, '\xff')));
    Write(dir, stem + ".truncate", EncodeMutation(file, MutationOp::kTruncate, 64, ""));
    Write(dir, stem + ".insert", EncodeMutation(file, MutationOp::kInsert, 16, "moraine"));
    Write(dir, stem + ".remove", EncodeMutation(file, MutationOp::kRemove, 0, ""));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: %s <out> [target]\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  const std::string only = argc == 3 ? argv[2] : "";
  const struct {
    const char* target;
    void (*write)(const fs::path&);
  } generators[] = {{"key_decode", KeySeeds},
                    {"value_frame", ValueFrameSeeds},
                    {"row_mapping", RowMappingSeeds},
                    {"store_open", StoreOpenSeeds}};
  bool known = only.empty();
  for (const auto& generator : generators) {
    if (!only.empty() && only != generator.target) continue;
    generator.write(out / generator.target);
    known = true;
  }
  if (!known) {
    std::fprintf(stderr, "no fuzz target %s\n", only.c_str());
    return 2;
  }
  return 0;
}
