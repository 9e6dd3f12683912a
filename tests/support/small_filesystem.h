// A small tmpfs of its own, to run a store out of space for real: the kernel
// returns ENOSPC, not an injected error. Mounting needs root (as CI and the
// developers' machines run); without it the test is skipped, saying why.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/temp_dir.h"

namespace moraine::test {

class SmallFilesystem {
 public:
  explicit SmallFilesystem(int mebibytes) {
    const std::string options = "size=" + std::to_string(mebibytes) + "m";
    if (mount("tmpfs", dir_.root().c_str(), "tmpfs", 0, options.c_str()) != 0) {
      error_ = std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~SmallFilesystem() {
    if (mounted_) umount2(dir_.root().c_str(), MNT_DETACH);
  }
  SmallFilesystem(const SmallFilesystem&) = delete;
  SmallFilesystem& operator=(const SmallFilesystem&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  std::string path(const std::string& name) const { return dir_.path(name); }

  // Takes every free byte, so that any write needing a new page fails.
  // (Pages already allocated to a file, such as a log's last one or space
  // RocksDB preallocated, still take the bytes that fit in them.)
  void Fill() {
    const int fd =
        open(dir_.path("filler").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const std::vector<char> block(1 << 16, 'x');
    for (size_t size = block.size(); size > 0; size /= 2) {
      while (write(fd, block.data(), size) == static_cast<ssize_t>(size)) {
      }
    }
    close(fd);
  }
  // Gives the space back.
  void Free() { std::filesystem::remove(dir_.path("filler")); }

 private:
  TempDir dir_;
  bool mounted_ = false;
  std::string error_;
};

// Skips the calling test when the filesystem could not be mounted.
#define MORAINE_REQUIRE_MOUNTED(fs)                                                   \
  if (!(fs).mounted()) GTEST_SKIP() << "cannot mount a tmpfs here: " << (fs).error(); \
  static_assert(true)

}  // namespace moraine::test
