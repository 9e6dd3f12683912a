#include "store/rocksdb/high_water_mark.h"

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <zlib.h>

#include "store/error.h"
#include "store/rocksdb/rocksdb_status.h"
#include "util/big_endian.h"

namespace moraine::store {
namespace {

// A slot is a sector-aligned page of its own, so a torn write of one never
// reaches the other.
constexpr uint64_t kSlotSize = 4096;
constexpr std::string_view kSlotMagic = "MHWM";
constexpr uint8_t kSlotVersion = 1;
// magic (4) · version (1) · reserved (3) · generation (8) · sequence (8) · CRC32 (4)
constexpr size_t kSlotBytes = 28;
constexpr size_t kCrcOffset = 24;

// Generations alternate between the two slots, so an advance always writes
// over the older one.
uint64_t SlotOffset(uint64_t generation) { return (generation % 2) * kSlotSize; }

struct Slot {
  uint64_t generation = 0;
  uint64_t sequence = 0;
};

uint32_t Crc(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

std::string EncodeSlot(const Slot& slot) {
  std::string bytes(kSlotMagic);
  bytes.push_back(static_cast<char>(kSlotVersion));
  bytes.append(3, '\0');
  util::AppendBigEndian64(&bytes, slot.generation);
  util::AppendBigEndian64(&bytes, slot.sequence);
  util::AppendBigEndian32(&bytes, Crc(bytes));
  bytes.resize(kSlotSize, '\0');
  return bytes;
}

// The slot at the front of `bytes` when it is whole; a version this build
// does not know is refused rather than read as damage.
std::optional<Slot> DecodeSlot(std::string_view bytes, const std::string& path) {
  if (bytes.size() < kSlotBytes || bytes.substr(0, 4) != kSlotMagic) return std::nullopt;
  if (util::ReadBigEndian32(bytes.data() + kCrcOffset) != Crc(bytes.substr(0, kCrcOffset)))
    return std::nullopt;
  if (static_cast<uint8_t>(bytes[4]) != kSlotVersion) {
    throw UnsupportedVersionError(path + " is of version " +
                                  std::to_string(static_cast<uint8_t>(bytes[4])) +
                                  ", which this build of moraine does not read");
  }
  return Slot{util::ReadBigEndian64(bytes.data() + 8), util::ReadBigEndian64(bytes.data() + 16)};
}

std::string PathIn(const std::string& dir) { return dir + "/" + std::string(kHighWaterFileName); }

void SyncDirectory(rocksdb::Env& env, const std::string& dir) {
  std::unique_ptr<rocksdb::Directory> directory;
  ThrowIfError(env.NewDirectory(dir, &directory), "open directory " + dir);
  ThrowIfError(directory->Fsync(), "sync directory " + dir);
}

// Writes a file at `sequence` (generation 1 in its slot, the other empty)
// under a temporary name, syncs it and renames it into place.
void WriteFresh(rocksdb::Env& env, const std::string& dir, uint64_t sequence) {
  const std::string path = PathIn(dir);
  const std::string temporary = path + ".tmp";
  std::string bytes(2 * kSlotSize, '\0');
  bytes.replace(SlotOffset(1), kSlotSize, EncodeSlot({1, sequence}));
  ThrowIfError(rocksdb::WriteStringToFile(&env, bytes, temporary, /*should_sync=*/true),
               "write " + temporary);
  ThrowIfError(env.RenameFile(temporary, path), "rename " + temporary);
  SyncDirectory(env, dir);
}

std::optional<Slot> ReadNewestSlot(rocksdb::Env& env, const std::string& dir) {
  const std::string path = PathIn(dir);
  if (env.FileExists(path).IsNotFound()) return std::nullopt;
  std::string bytes;
  ThrowIfError(rocksdb::ReadFileToString(&env, path, &bytes), "read " + path);
  std::optional<Slot> newest;
  for (uint64_t offset = 0; offset < bytes.size(); offset += kSlotSize) {
    auto slot = DecodeSlot(std::string_view(bytes).substr(offset, kSlotSize), path);
    if (slot && (!newest || slot->generation > newest->generation)) newest = slot;
  }
  if (!newest) {
    throw CorruptionError("the store's high-water file " + std::string(kHighWaterFileName) +
                          " is damaged: neither of its slots is whole");
  }
  return newest;
}

}  // namespace

std::optional<uint64_t> HighWaterMark::Read(rocksdb::Env& env, const std::string& dir) {
  auto slot = ReadNewestSlot(env, dir);
  if (!slot) return std::nullopt;
  return slot->sequence;
}

std::unique_ptr<HighWaterMark> HighWaterMark::OpenOrCreate(rocksdb::Env& env,
                                                           const std::string& dir,
                                                           uint64_t sequence) {
  auto slot = ReadNewestSlot(env, dir);
  if (!slot) {
    WriteFresh(env, dir, sequence);
    slot = Slot{1, sequence};
  }
  std::unique_ptr<rocksdb::RandomRWFile> file;
  ThrowIfError(env.NewRandomRWFile(PathIn(dir), &file, rocksdb::EnvOptions()),
               "open " + PathIn(dir));
  return std::unique_ptr<HighWaterMark>(
      new HighWaterMark(std::move(file), slot->generation, slot->sequence));
}

void HighWaterMark::Reset(rocksdb::Env& env, const std::string& dir, uint64_t sequence) {
  WriteFresh(env, dir, sequence);
}

HighWaterMark::HighWaterMark(std::unique_ptr<rocksdb::RandomRWFile> file, uint64_t generation,
                             uint64_t sequence)
    : file_(std::move(file)), generation_(generation), sequence_(sequence) {}

HighWaterMark::~HighWaterMark() {
  if (file_) file_->Close().PermitUncheckedError();
}

void HighWaterMark::Advance(uint64_t sequence) {
  if (sequence <= sequence_) return;
  const Slot next{generation_ + 1, sequence};
  // The slot the older generation holds: the newest stays whole whatever
  // this write leaves.
  ThrowIfError(file_->Write(SlotOffset(next.generation), EncodeSlot(next)),
               "write the high-water mark");
  ThrowIfError(file_->Sync(), "sync the high-water mark");
  generation_ = next.generation;
  sequence_ = sequence;
}

bool HighWaterRecorded(rocksdb::DB& db) {
  std::string kept;
  const rocksdb::Status status =
      db.Get(rocksdb::ReadOptions(),
             rocksdb::Slice(kHighWaterKeptKey.data(), kHighWaterKeptKey.size()), &kept);
  if (status.IsNotFound()) return false;
  ThrowIfError(status, "read the high-water record");
  return true;
}

std::optional<std::string> HighWaterShortfall(rocksdb::DB& db, std::optional<uint64_t> mark) {
  if (mark) {
    const uint64_t reached = db.GetLatestSequenceNumber();
    if (reached >= *mark) return std::nullopt;
    return "its files end at write " + std::to_string(reached) + ", but write " +
           std::to_string(*mark) + " was acknowledged (" + std::string(kHighWaterFileName) +
           "): its MANIFEST, newest log or a table file is short or missing";
  }
  if (!HighWaterRecorded(db)) return std::nullopt;
  return "its high-water file " + std::string(kHighWaterFileName) + " is missing";
}

}  // namespace moraine::store
