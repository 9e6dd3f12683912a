#include "store_fixture.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "sample_records.h"
#include "store/key_kind.h"
#include "store/rocksdb/rocksdb_store.h"
#include "store/value_frame.h"

namespace moraine::fuzz {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void PutEveryKind(store::WriteBatch* batch, uint64_t n) {
  for (const store::KindInfo& info : store::kKindTable) {
    auto record = SampleRecord(info.kind, n);
    for (const store::Key& key : SampleKeys(info.kind, n)) {
      batch->Put(key.Encode(), store::FrameValue(info.kind, *record));
    }
  }
}

}  // namespace

void BuildSampleStore(const fs::path& dir) {
  auto store = store::RocksDbStore::Open({.location = dir.string()});
  store::WriteBatch flushed;
  PutEveryKind(&flushed, 1);
  store->Write(flushed);
  store->Flush();
  // A second batch only in the write-ahead log: recovery must replay it.
  store::WriteBatch logged;
  PutEveryKind(&logged, 2);
  logged.Delete(SampleKeys(store::Kind::kColumn, 1).front().Encode());
  store->Write(logged);
}

std::vector<fs::path> MutableFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == "LOCK" || name.starts_with("LOG")) continue;
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void ApplyMutations(const fs::path& dir, std::span<const uint8_t> input) {
  const std::vector<fs::path> files = MutableFiles(dir);
  while (input.size() >= kMutationHeaderSize && !files.empty()) {
    const fs::path& file = files[input[0] % files.size()];
    const auto op = static_cast<MutationOp>(input[1] % kMutationOpCount);
    const size_t raw_offset = input[2] | (size_t{input[3]} << 8);
    const size_t length = std::min<size_t>(input[4], input.size() - kMutationHeaderSize);
    const std::string bytes(reinterpret_cast<const char*>(input.data()) + kMutationHeaderSize,
                            length);
    input = input.subspan(kMutationHeaderSize + length);
    if (!fs::exists(file)) continue;  // removed by an earlier mutation
    if (op == MutationOp::kRemove) {
      fs::remove(file);
      continue;
    }
    std::string contents = ReadFile(file);
    const size_t offset = raw_offset % (contents.size() + 1);
    switch (op) {
      case MutationOp::kOverwrite:
        contents.replace(offset, std::min(bytes.size(), contents.size() - offset), bytes);
        break;
      case MutationOp::kTruncate:
        contents.resize(offset);
        break;
      case MutationOp::kInsert:
        contents.insert(offset, bytes);
        break;
      case MutationOp::kRemove:
        break;
    }
    WriteFile(file, contents);
  }
}

std::string EncodeMutation(uint8_t file, MutationOp op, uint16_t offset, std::string_view bytes) {
  std::string out;
  out.push_back(static_cast<char>(file));
  out.push_back(static_cast<char>(op));
  out.push_back(static_cast<char>(offset & 0xFF));
  out.push_back(static_cast<char>(offset >> 8));
  out.push_back(static_cast<char>(std::min<size_t>(bytes.size(), 255)));
  out.append(bytes.substr(0, 255));
  return out;
}

}  // namespace moraine::fuzz
