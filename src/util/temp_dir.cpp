#include "util/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <system_error>

namespace moraine::util {

std::filesystem::path CreateTempDir(std::string_view prefix, const std::filesystem::path& parent) {
  const std::filesystem::path base =
      parent.empty() ? std::filesystem::temp_directory_path() : parent;
  std::string pattern = (base / (std::string(prefix) + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::generic_category(), "cannot create a directory " + pattern);
  }
  return pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(root_, ignored);
}

}  // namespace moraine::util
