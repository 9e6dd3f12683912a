// SQL written once for several lakes in one session: `$L` names the lake and
// `$M` its hidden metadata catalog (DuckLake's __ducklake_metadata_<lake>).
#pragma once

#include <string>

namespace moraine::test {

inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// `sql` for the lake attached as `lake`.
inline std::string OnLake(const std::string& sql, const std::string& lake) {
  return ReplaceAll(ReplaceAll(sql, "$M", "__ducklake_metadata_" + lake), "$L", lake);
}

}  // namespace moraine::test
