// Fresh, private temporary directories.
//
// Thread-safety: CreateTempDir may be called from any thread (mkdtemp picks a
// unique name atomically); a TempDir does not change until it is destroyed.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace moraine::util {

// Creates a new directory in `parent` (empty: the system temporary
// directory) whose name starts with `prefix`, and returns its path. The
// caller owns (and removes) it. Throws std::system_error if it cannot be
// created.
std::filesystem::path CreateTempDir(std::string_view prefix,
                                    const std::filesystem::path& parent = {});

// A directory from CreateTempDir, removed with everything in it when this
// object is destroyed.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "moraine-") : root_(CreateTempDir(prefix)) {}
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& root() const { return root_; }
  // The path of `name` inside the directory (not created).
  std::string path(const std::string& name) const { return (root_ / name).string(); }

 private:
  std::filesystem::path root_;
};

}  // namespace moraine::util
