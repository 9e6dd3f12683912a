#include "tools/backup_repository.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "store/error.h"
#include "util/directory_sync.h"

namespace moraine::tools {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMarkerName = "MORAINE-BACKUP";
constexpr std::string_view kMarkerPrefix = "moraine backup repository ";
constexpr std::string_view kManifestMagic = "moraine-backup";

[[noreturn]] void ThrowIo(const std::string& what, const fs::path& path) {
  throw store::IoError(what + " " + path.string() + ": " + std::strerror(errno));
}

void SyncDirectory(const fs::path& directory) {
  if (const int error = util::SyncDirectory(directory.string())) {
    errno = error;
    ThrowIo("cannot sync", directory);
  }
}

// Writes `bytes` to `path` whole or not at all: a synced temporary file
// renamed into place, its directory synced.
void WriteFileDurably(const fs::path& path, std::string_view bytes) {
  const fs::path temporary = path.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) ThrowIo("cannot create", temporary);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      ThrowIo("cannot write", temporary);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    ThrowIo("cannot sync", temporary);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) ThrowIo("cannot rename into", path);
  SyncDirectory(path.parent_path());
}

std::string ReadWholeFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowIo("cannot read", path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string MarkerText() {
  return std::string(kMarkerPrefix) + std::to_string(kBackupFormat) + "\n";
}

// Checks the marker of the repository at `path`.
void RequireMarker(const fs::path& path) {
  const std::string marker = ReadWholeFile(path / kMarkerName);
  if (marker == MarkerText()) return;
  if (marker.starts_with(kMarkerPrefix)) {
    throw store::UnsupportedVersionError(
        path.string() + " is a moraine backup repository of format " +
        marker.substr(kMarkerPrefix.size(), marker.find('\n') - kMarkerPrefix.size()) +
        "; this build reads format " + std::to_string(kBackupFormat));
  }
  throw store::CorruptionError(path.string() + " has a damaged " + std::string(kMarkerName) +
                               " file");
}

fs::path ChunkPath(const fs::path& root, const std::string& sha256) {
  return root / "chunks" / sha256.substr(0, 2) / sha256;
}

std::string ManifestBody(const BackupManifest& manifest) {
  std::ostringstream out;
  out << kManifestMagic << " " << kBackupFormat << "\n"
      << "id " << manifest.id << "\n"
      << "created " << manifest.created << "\n"
      << "source " << manifest.source << "\n"
      << "head_snapshot " << manifest.head_snapshot << "\n"
      << "batch_count " << manifest.batch_count << "\n"
      << "keys " << manifest.keys << "\n"
      << "bytes " << manifest.bytes << "\n";
  if (!manifest.hold.empty()) out << "hold " << manifest.hold << "\n";
  for (const BackupChunk& chunk : manifest.chunks) {
    out << "chunk " << chunk.sha256 << " " << chunk.keys << " " << chunk.bytes << "\n";
  }
  return out.str();
}

}  // namespace

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw store::IoError("SHA-256 failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xF]);
  }
  return hex;
}

BackupRepository BackupRepository::OpenOrCreate(const fs::path& path) {
  std::error_code error;
  const bool exists = fs::exists(path, error);
  if (exists && fs::exists(path / kMarkerName)) return Open(path);
  if (exists && (!fs::is_directory(path) || !fs::is_empty(path))) {
    throw store::InvalidArgumentError(path.string() +
                                      " exists and is not a moraine backup repository; back up "
                                      "into a new directory or an existing repository");
  }
  fs::create_directories(path / "chunks", error);
  if (error) throw store::IoError("cannot create " + path.string() + ": " + error.message());
  fs::create_directories(path / "backups", error);
  if (error) throw store::IoError("cannot create " + path.string() + ": " + error.message());
  WriteFileDurably(path / kMarkerName, MarkerText());
  SyncDirectory(path.parent_path().empty() ? fs::path(".") : path.parent_path());
  return BackupRepository(path);
}

BackupRepository BackupRepository::Open(const fs::path& path) {
  if (!fs::exists(path / kMarkerName)) {
    throw store::NotFoundError("no moraine backup repository at " + path.string());
  }
  RequireMarker(path);
  return BackupRepository(path);
}

std::pair<std::string, uint64_t> BackupRepository::PutChunk(std::string_view bytes) {
  std::string sha256 = Sha256Hex(bytes);
  const fs::path path = ChunkPath(path_, sha256);
  if (fs::exists(path)) return {std::move(sha256), 0};
  std::error_code error;
  fs::create_directories(path.parent_path(), error);
  if (error) throw store::IoError("cannot create " + path.parent_path().string());
  WriteFileDurably(path, bytes);
  return {std::move(sha256), bytes.size()};
}

std::string BackupRepository::ReadChunk(const std::string& sha256) const {
  const fs::path path = ChunkPath(path_, sha256);
  if (sha256.size() != 64 || !fs::exists(path)) {
    throw store::NotFoundError("the backup repository " + path_.string() + " has no chunk " +
                               sha256);
  }
  std::string bytes = ReadWholeFile(path);
  if (Sha256Hex(bytes) != sha256) {
    throw store::CorruptionError("chunk " + path.string() +
                                 " is damaged: its bytes do not hash to its name");
  }
  return bytes;
}

std::vector<uint64_t> BackupRepository::BackupIds() const {
  std::vector<uint64_t> ids;
  for (const auto& entry : fs::directory_iterator(path_ / "backups")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    ids.push_back(std::stoull(name));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

void BackupRepository::PutManifest(const BackupManifest& manifest) {
  const fs::path path = path_ / "backups" / std::to_string(manifest.id);
  if (fs::exists(path)) {
    throw store::ConstraintError("backup " + std::to_string(manifest.id) + " already exists in " +
                                 path_.string());
  }
  const std::string body = ManifestBody(manifest);
  WriteFileDurably(path, body + "sha256 " + Sha256Hex(body) + "\n");
}

BackupManifest BackupRepository::ReadManifest(uint64_t id) const {
  const fs::path path = path_ / "backups" / std::to_string(id);
  if (!fs::exists(path)) {
    throw store::NotFoundError("no backup " + std::to_string(id) + " in " + path_.string());
  }
  const std::string text = ReadWholeFile(path);
  const size_t last = text.rfind("sha256 ");
  const auto damaged = [&](const std::string& why) {
    return store::CorruptionError("the manifest " + path.string() + " is damaged: " + why);
  };
  if (last == std::string::npos ||
      text.substr(last) != "sha256 " + Sha256Hex(text.substr(0, last)) + "\n") {
    throw damaged("its checksum does not match");
  }
  std::istringstream lines(text.substr(0, last));
  std::string word;
  uint64_t format = 0;
  if (!(lines >> word >> format) || word != kManifestMagic) throw damaged("no header");
  if (format != kBackupFormat) {
    throw store::UnsupportedVersionError("backup " + std::to_string(id) + " is of format " +
                                         std::to_string(format) + "; this build reads format " +
                                         std::to_string(kBackupFormat));
  }
  BackupManifest manifest;
  while (lines >> word) {
    if (word == "id") {
      lines >> manifest.id;
    } else if (word == "created") {
      lines >> std::ws;
      std::getline(lines, manifest.created);
    } else if (word == "source") {
      lines >> std::ws;
      std::getline(lines, manifest.source);
    } else if (word == "hold") {
      lines >> std::ws;
      std::getline(lines, manifest.hold);
    } else if (word == "head_snapshot") {
      lines >> manifest.head_snapshot;
    } else if (word == "batch_count") {
      lines >> manifest.batch_count;
    } else if (word == "keys") {
      lines >> manifest.keys;
    } else if (word == "bytes") {
      lines >> manifest.bytes;
    } else if (word == "chunk") {
      BackupChunk chunk;
      lines >> chunk.sha256 >> chunk.keys >> chunk.bytes;
      manifest.chunks.push_back(std::move(chunk));
    } else {
      throw damaged("an unknown line '" + word + "'");
    }
    if (!lines) throw damaged("a malformed '" + word + "' line");
  }
  if (manifest.id != id) throw damaged("it names backup " + std::to_string(manifest.id));
  return manifest;
}

}  // namespace moraine::tools
