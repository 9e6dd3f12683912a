#pragma once

// The store's high-water mark (issue #33): the sequence number of the newest
// write a RocksDB store on disk has acknowledged, kept outside RocksDB's own
// files so that a store whose MANIFEST, log or table files end before it is
// refused as damaged at open instead of served as a shorter catalog.
//
// The mark lives in MORAINE-HIGH-WATER beside the store's files: two 4 KiB
// slots, each a magic, a generation, the sequence and a CRC32; an advance
// writes the slot the older generation holds and syncs the file, so a write
// torn by a crash leaves the other slot whole. A reader takes the whole slot
// with the newer generation.
//
// The file's own loss is detected by a key of the store's private subspace 0
// (kHighWaterKeptKey), written once, after the file is synced, by the first
// writer that created the file: a store whose records hold that key and
// whose directory holds no file was damaged.
//
// The mark only ever lags what is durable: it is advanced after the log sync
// that made a write durable, never before. A crash between the two leaves it
// one group behind, which is a weaker check and never a false refusal.
//
// Thread-safety: Read, OpenOrCreate and Reset are functions of the
// directory; an open HighWaterMark's Advance is called by one thread at a
// time (the group sync's syncing waiter).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace rocksdb {
class DB;
class Env;
class RandomRWFile;
}  // namespace rocksdb

namespace moraine::store {

// The file's name in the store directory.
inline constexpr std::string_view kHighWaterFileName = "MORAINE-HIGH-WATER";
// The key that says the store keeps a high-water file (subspace 0: the
// store's own, never served to a reader; see RocksDbStore).
inline constexpr std::string_view kHighWaterKeptKey = std::string_view("\0high-water-kept", 16);

class HighWaterMark {
 public:
  // The mark of the store in `dir`, or nullopt when it keeps no file there.
  // Throws CorruptionError when the file is there but neither slot is whole,
  // IoError when it cannot be read.
  static std::optional<uint64_t> Read(rocksdb::Env& env, const std::string& dir);

  // Opens the file of the store in `dir` for advancing, creating it at
  // `sequence` when it is absent (written and synced under a temporary name,
  // renamed into place, the directory synced). Throws IoError.
  static std::unique_ptr<HighWaterMark> OpenOrCreate(rocksdb::Env& env, const std::string& dir,
                                                     uint64_t sequence);

  // Replaces the file with one at `sequence`: for a repair, whose salvaged
  // store may end before the old mark. Throws IoError.
  static void Reset(rocksdb::Env& env, const std::string& dir, uint64_t sequence);

  ~HighWaterMark();
  HighWaterMark(const HighWaterMark&) = delete;
  HighWaterMark& operator=(const HighWaterMark&) = delete;

  // Records that every write up to `sequence` is durable, synced before it
  // returns; a sequence not above the mark changes nothing. Throws IoError.
  void Advance(uint64_t sequence);
  uint64_t sequence() const { return sequence_; }

 private:
  HighWaterMark(std::unique_ptr<rocksdb::RandomRWFile> file, uint64_t generation,
                uint64_t sequence);

  std::unique_ptr<rocksdb::RandomRWFile> file_;
  uint64_t generation_;
  uint64_t sequence_;
};

// Whether `db` holds the record that says its store keeps a high-water file
// (kHighWaterKeptKey). Throws IoError when it cannot be read.
bool HighWaterRecorded(rocksdb::DB& db);

// What is wrong with `db`, opened on a store whose mark Read returned `mark`
// before the open (read before, so that a writer advancing it meanwhile
// cannot make a reader's fresh instance look short): its files end before
// the mark, or the store keeps a high-water file that is gone. Nullopt when
// neither. Throws IoError when the record cannot be read.
std::optional<std::string> HighWaterShortfall(rocksdb::DB& db, std::optional<uint64_t> mark);

}  // namespace moraine::store
