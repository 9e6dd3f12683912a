#include "commit/lake/ducklake_path.h"

namespace moraine::commit {

std::string LoadedDuckLakePath(const std::string& stored, bool relative, const std::string& base,
                               const std::string& separator) {
  const std::string path = relative ? base + stored : stored;
  if (separator == "/") return path;
  std::string out;
  for (char c : path) {
    if (c == '/') {
      out += separator;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace moraine::commit
