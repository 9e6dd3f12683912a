// A backup repository (issue #34): the directory `moraine backup` writes and
// `moraine restore` reads. It holds any number of backups of one or more
// stores, each a manifest naming content-addressed chunks of key-value
// records, so a backup copies only the chunks no earlier backup in the
// repository already holds.
//
//   MORAINE-BACKUP          "moraine backup repository <format>\n"
//   chunks/<ab>/<sha256>    records: u32 BE key size, key, u32 BE value size,
//                           value; named by the SHA-256 of its bytes
//   backups/<id>            the manifest of backup <id> (BackupManifest), its
//                           last line the SHA-256 of the lines before it
//
// Every file is written under a temporary name, synced and renamed into
// place, the directory synced: a crash leaves a whole chunk or manifest or
// none (a backup without its manifest does not exist; its chunks are reused
// by the next one).
//
// Thread-safety: an open repository is used by one thread at a time; two
// processes writing one repository at once may both write a chunk (the same
// bytes) but take distinct ids only by chance: run one backup per repository
// at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moraine::tools {

inline constexpr uint64_t kBackupFormat = 1;

struct BackupChunk {
  std::string sha256;  // lowercase hex
  uint64_t keys = 0;
  uint64_t bytes = 0;
  bool operator==(const BackupChunk&) const = default;
};

struct BackupManifest {
  uint64_t id = 0;
  std::string created;  // ISO 8601 UTC
  std::string source;   // the store location backed up
  int64_t head_snapshot = -1;
  uint64_t batch_count = 0;
  uint64_t keys = 0;
  uint64_t bytes = 0;  // of all records, copied or not
  // The protected tag holding the backup in its source (store_backup.h's
  // BackupLake), which the backup's own records hold too; empty if none.
  std::string hold;
  std::vector<BackupChunk> chunks;
  bool operator==(const BackupManifest&) const = default;
};

class BackupRepository {
 public:
  // Opens the repository at `path`, creating it where nothing is (or an empty
  // directory). Throws store::InvalidArgumentError for a path that holds
  // anything else, store::UnsupportedVersionError for a repository of
  // another format, store::IoError.
  static BackupRepository OpenOrCreate(const std::filesystem::path& path);
  // Opens an existing repository. Throws store::NotFoundError where there is
  // none, and as OpenOrCreate.
  static BackupRepository Open(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }

  // Writes a chunk unless the repository holds it; returns its name and the
  // bytes written (0 when it was there).
  std::pair<std::string, uint64_t> PutChunk(std::string_view bytes);
  // The bytes of chunk `sha256`, checked against its name. Throws
  // store::NotFoundError when absent, store::CorruptionError when damaged.
  std::string ReadChunk(const std::string& sha256) const;

  // The ids of the backups the repository holds, oldest first.
  std::vector<uint64_t> BackupIds() const;
  // Writes `manifest` as backup manifest.id, which must be new.
  void PutManifest(const BackupManifest& manifest);
  // Throws store::NotFoundError for an unknown id, store::CorruptionError for
  // a damaged manifest, store::UnsupportedVersionError for another format.
  BackupManifest ReadManifest(uint64_t id) const;

 private:
  explicit BackupRepository(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

// The SHA-256 of `bytes`, lowercase hex.
std::string Sha256Hex(std::string_view bytes);

}  // namespace moraine::tools
