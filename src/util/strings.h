// String helpers the standard library lacks. ASCII only: they are for SQL
// keywords, test scripts and tool output, not for user text. Pure
// functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace moraine::util {

// `text` with ASCII letters lower-cased.
std::string Lower(std::string text);
// `text` without leading and trailing white space (space, \t, \n, \v, \f, \r).
std::string Trim(std::string_view text);
// The parts of `text` between occurrences of `separator` (non-empty), empty
// parts included: Split("a,,b", ",") is {"a", "", "b"}; Split("", ",") is {""}.
std::vector<std::string> Split(std::string_view text, std::string_view separator);
// The parts with `separator` between them.
std::string Join(const std::vector<std::string>& parts, std::string_view separator);
// `text` between two `quote` characters, each `quote` within doubled: SQL's
// quoting of a string literal (') or of an identifier (").
std::string SqlQuoted(std::string_view text, char quote);

}  // namespace moraine::util
