// DuckLake's FromRelativePath and LoadPath: a path as DuckLake stores it
// ('/'-separated, maybe relative to a base) made into the path it opens.
//
// Thread-safety: a pure function.
#pragma once

#include <string>

namespace moraine::commit {

// `stored` (relative to `base` when `relative`), with '/' replaced by
// `separator`.
std::string LoadedDuckLakePath(const std::string& stored, bool relative, const std::string& base,
                               const std::string& separator);

}  // namespace moraine::commit
