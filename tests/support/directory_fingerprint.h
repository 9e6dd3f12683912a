// The bytes of every file in a directory, to show that a refused open changed
// nothing. RocksDB's info log (LOG, LOG.old) is a diagnostic that every open
// attempt writes, so it is left out.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace moraine::test {

using DirectoryFingerprint = std::map<std::string, std::string>;

inline std::string ReadWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline DirectoryFingerprint FingerprintOf(const std::filesystem::path& directory) {
  DirectoryFingerprint files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    if (name == "LOG" || name.starts_with("LOG.old")) continue;
    files[name] = ReadWholeFile(entry.path());
  }
  return files;
}

}  // namespace moraine::test
